/**
 * `contactor stdio`: the bridge's JSON-RPC as line-delimited JSON on stdin/stdout, for pipelines and
 * agents that prefer a pipe to HTTP. Each line is forwarded to the running bridge (started if none);
 * a streaming method's events come back as `stream/event` notifications, then its final response.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { JsonRpcRequestSchema } from '../../schema/rpc.js';
import { RpcReplySchema } from '../../schema/cli.js';
import { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { ensureBridge } from '../bridge-client/launch-bridge.js';
import { readSse } from '../bridge-client/sse-reader.js';

const STREAMING = new Set(['message/stream', 'tasks/resubscribe', 'SendStreamingMessage', 'SubscribeToTask']);

type Id = string | number | null;

export function registerStdio(program: Command, run: Runner): void {
  program
    .command('stdio')
    .description(
      'JSON-RPC on stdin/stdout, one message per line, forwarded to the bridge (streams as stream/event notifications)',
    )
    .action(run(stdio));
}

async function stdio(cli: CliContext): Promise<number> {
  if (cli.json) throw new CliError('stdio speaks JSON-RPC already; drop --json', EXIT.usage);
  const { address } = await ensureBridge(cli.opts, cli.env);
  const client = new BridgeClient(address);
  const write = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const inFlight = new Set<Promise<void>>();
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const job = forward(client, line, write).finally(() => inFlight.delete(job));
    inFlight.add(job);
  }
  await Promise.all(inFlight);
  return EXIT.completed;
}

async function forward(client: BridgeClient, line: string, write: (m: unknown) => void): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return write(errorReply(null, -32700, 'this line is not valid JSON'));
  }
  const request = JsonRpcRequestSchema.safeParse(raw);
  const id: Id = request.success ? (request.data.id ?? null) : null;
  const streaming = request.success && STREAMING.has(request.data.method);
  try {
    const res = await client.raw(raw, { accept: streaming ? 'text/event-stream' : 'application/json' });
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream') && res.body) {
      let last: unknown = null;
      for await (const event of readSse(res.body)) {
        const reply = RpcReplySchema.safeParse(JSON.parse(event.data));
        if (!reply.success) continue;
        if (reply.data.error) return write({ jsonrpc: '2.0', id, error: reply.data.error });
        last = reply.data.result;
        write({ jsonrpc: '2.0', method: 'stream/event', params: { id, result: last } });
      }
      return write({ jsonrpc: '2.0', id, result: last });
    }
    const text = await res.text();
    if (text.trim() !== '') write(JSON.parse(text));
  } catch (err) {
    const message = err instanceof CliError ? err.message : `the bridge connection failed: ${(err as Error).message}`;
    if (request.success && request.data.id === undefined) return;
    write(errorReply(id, err instanceof CliError && err.exitCode === EXIT.unauthorized ? -32066 : -32603, message));
  }
}

function errorReply(id: Id, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
