/**
 * Blocking `message/send` to an echo agent at several concurrencies: contactor (SQLite, in-process
 * echo) vs the @a2a-js/sdk reference server vs the bare-HTTP floor. The servers take turns round by
 * round, so a noisy moment hurts all of them alike; each figure is the median of its rounds.
 */
import { randomUUID } from 'node:crypto';
import { KeepAliveClient, runLoad, type HttpReply, type LoadResult } from '../lib/http-client.js';
import { cpuMs } from '../lib/children.js';
import { median, percentile } from '../lib/stats.js';

export interface ServerUnderTest {
  /** 'contactor', 'reference', 'floor', or a contactor variant of the breakdown section. */
  name: string;
  port: number;
  path: string;
  headers: Record<string, string>;
  /** The server's process, for its CPU time per request. */
  pid: number;
}

/** An echo server of ours (the product's or the ceiling's) as the harness addresses it: its agent, its token. */
export function echoServer(
  name: string,
  child: { pid: number; info: { port: number; token?: string | undefined } },
): ServerUnderTest {
  return {
    name,
    pid: child.pid,
    port: child.info.port,
    path: '/agents/echo',
    headers: { authorization: `Bearer ${child.info.token}` },
  };
}

export interface ThroughputRow {
  server: ServerUnderTest['name'];
  concurrency: number;
  tasksPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  rounds: number[];
  /** Server CPU (user + system) per request: steadier than wall time on a shared machine. */
  cpuUsPerRequest: number | undefined;
  failures: number;
}

export const PROMPT = 'hello from the benchmark';

export function sendBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'message/send',
    params: {
      message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: PROMPT }] },
    },
  });
}

const completed = (reply: HttpReply): boolean => reply.status === 200 && reply.body.includes('"state":"completed"');
const anyOk = (reply: HttpReply): boolean => reply.status === 200 && reply.body.includes('"result"');

export async function measureThroughput(opts: {
  servers: ServerUnderTest[];
  concurrencies: number[];
  count: number;
  warmup: number;
  rounds: number;
}): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const concurrency of opts.concurrencies) {
    const results = new Map<string, (LoadResult & { cpu: number | undefined })[]>();
    for (let round = 0; round < opts.rounds; round++) {
      for (const server of opts.servers) {
        const client = new KeepAliveClient({ port: server.port, headers: server.headers }, concurrency);
        const check = server.name === 'floor' ? anyOk : completed;
        const send = (i: number) => client.post(server.path, sendBody(i));
        await runLoad({ count: opts.warmup, concurrency, send, check });
        const cpuBefore = cpuMs(server.pid);
        const result = await runLoad({ count: opts.count, concurrency, send, check });
        const cpuAfter = cpuMs(server.pid);
        client.close();
        const cpu =
          cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / opts.count;
        results.set(server.name, [...(results.get(server.name) ?? []), { ...result, cpu }]);
      }
    }
    for (const server of opts.servers) {
      const runs = results.get(server.name)!;
      const latencies = runs.flatMap((r) => r.latenciesMs);
      rows.push({
        server: server.name,
        concurrency,
        tasksPerSecond: median(runs.map((r) => r.perSecond)),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        rounds: runs.map((r) => r.perSecond),
        cpuUsPerRequest: runs.every((r) => r.cpu !== undefined) ? median(runs.map((r) => r.cpu!)) : undefined,
        failures: runs.reduce((n, r) => n + r.failures, 0),
      });
    }
  }
  return rows;
}
