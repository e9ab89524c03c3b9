/**
 * POSTs a streaming JSON-RPC call and hands each SSE event to `onEvent` the moment its bytes are
 * parsed, with the arrival time. Resolves when the server ends the stream.
 */
import { request } from 'node:http';
import { createParser } from 'eventsource-parser';

export function streamCall(opts: {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  onEvent: (data: unknown, receivedAt: number) => void;
}): Promise<void> {
  return new Promise((resolve, reject) => {
    const parser = createParser({
      onEvent: (event) => opts.onEvent(JSON.parse(event.data), performance.timeOrigin + performance.now()),
    });
    const req = request(
      {
        host: '127.0.0.1',
        port: opts.port,
        path: opts.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...opts.headers },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        res.on('end', () => resolve());
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
