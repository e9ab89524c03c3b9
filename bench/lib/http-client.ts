/**
 * The one client every server is measured with: node:http over a keep-alive agent, one socket per
 * in-flight request. Cheaper per call than fetch, so on a 2-core machine it takes less CPU away
 * from the server under test.
 */
import { Agent, request } from 'node:http';

export interface HttpReply {
  status: number;
  body: string;
}

export class KeepAliveClient {
  private readonly agent: Agent;

  constructor(
    private readonly base: { port: number; headers?: Record<string, string> },
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  post(path: string, body: string, headers: Record<string, string> = {}): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.base.port,
          path,
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...this.base.headers,
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface LoadResult {
  count: number;
  concurrency: number;
  elapsedMs: number;
  perSecond: number;
  latenciesMs: number[];
  failures: number;
}

/**
 * Sends `count` requests with at most `concurrency` in flight. `check` says whether a reply is a
 * success (a completed task, the fixed result); failures are counted, never silently timed.
 */
export async function runLoad(opts: {
  count: number;
  concurrency: number;
  send: (i: number) => Promise<HttpReply>;
  check: (reply: HttpReply) => boolean;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < opts.count) {
      const i = next++;
      const t0 = performance.now();
      const reply = await opts.send(i);
      latencies.push(performance.now() - t0);
      if (!opts.check(reply)) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = performance.now() - started;
  return {
    count: opts.count,
    concurrency: opts.concurrency,
    elapsedMs,
    perSecond: (opts.count / elapsedMs) * 1000,
    latenciesMs: latencies,
    failures,
  };
}
