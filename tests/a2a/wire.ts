/**
 * Raw A2A wire access for the conformance tests: JSON-RPC calls with the version header, and SSE
 * streams read event by event (with their `id:` lines), so each test sees exactly what a client sees.
 */
import { createParser } from 'eventsource-parser';
import type { RpcResponse, TestBridge } from '../helpers/bridge.js';

export type Version = '0.3' | '1.0';

/** Wire JSON as the tests read it: shapes are asserted by the tests themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Wire = any;

export function headersFor(version: Version | string | undefined): Record<string, string> {
  return version === undefined ? {} : { 'A2A-Version': version };
}

/** One JSON-RPC call at `path` (default the agent's own endpoint) in the given protocol version. */
export function call(
  tb: TestBridge,
  version: Version | string | undefined,
  method: string,
  params: unknown,
  opts: { path?: string } = {},
): Promise<RpcResponse> {
  return tb.rpc(method, params, { ...(opts.path ? { path: opts.path } : {}), headers: headersFor(version) });
}

export interface SseEvent {
  id?: number;
  event?: string;
  /** The JSON-RPC response object of this event. */
  data: { jsonrpc: '2.0'; id: unknown; result?: Wire; error?: { code: number; message: string; data?: unknown } };
}

export interface SseStream {
  /** HTTP status and content type, for checks on the framing. */
  status: number;
  contentType: string;
  /** Set when the server answered with a plain JSON-RPC error instead of a stream. */
  error?: { code: number; message: string; data?: unknown };
  /** The next event, or undefined once the server closed the stream. */
  next(): Promise<SseEvent | undefined>;
  /** Every remaining event until the server closes the stream. */
  rest(): Promise<SseEvent[]>;
  /** Drops the connection from the client side. */
  close(): void;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
}

/** POSTs a streaming call with `Accept: text/event-stream` and reads the reply as SSE. */
export async function openStream(
  tb: TestBridge,
  opts: {
    version?: Version | string;
    method: string;
    params: unknown;
    path?: string;
    lastEventId?: number;
    rpcId?: string | number;
  },
): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(`${tb.url}${opts.path ?? '/'}`, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${tb.token}`,
      ...headersFor(opts.version),
      ...(opts.lastEventId !== undefined ? { 'Last-Event-ID': String(opts.lastEventId) } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: opts.rpcId ?? 's1', method: opts.method, params: opts.params }),
  });
  const contentType = res.headers.get('content-type') ?? '';
  const queue: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let done = false;
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };

  if (!contentType.startsWith('text/event-stream')) {
    const body = (await res.json()) as RpcResponse;
    const ended = Promise.resolve();
    return {
      status: res.status,
      contentType,
      ...(body.error ? { error: body.error } : {}),
      next: () => Promise.resolve(undefined),
      rest: () => Promise.resolve([]),
      close: () => undefined,
      ended,
    };
  }

  const parser = createParser({
    onEvent(message) {
      queue.push({
        ...(message.id !== undefined ? { id: Number(message.id) } : {}),
        ...(message.event !== undefined ? { event: message.event } : {}),
        data: JSON.parse(message.data) as SseEvent['data'],
      });
      wake();
    },
  });
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Aborted by close(): the events read so far stay readable.
    } finally {
      done = true;
      wake();
    }
  })();

  const next = async (): Promise<SseEvent | undefined> => {
    while (queue.length === 0 && !done) await new Promise<void>((r) => waiters.push(r));
    return queue.shift();
  };
  return {
    status: res.status,
    contentType,
    next,
    async rest() {
      await ended;
      return queue.splice(0);
    },
    close: () => abort.abort(),
    ended,
  };
}

/** Reads events until one matches, returning everything read (inclusive). */
export async function readUntil(stream: SseStream, match: (e: SseEvent) => boolean): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (;;) {
    const event = await stream.next();
    if (!event)
      throw new Error(
        `stream ended before the expected event; saw ${JSON.stringify(seen.map((e) => e.data.result ?? e.data.error))}`,
      );
    seen.push(event);
    if (match(event)) return seen;
  }
}

/** A message in each wire version. */
export function userMessage(
  version: Version,
  text: string,
  extra: { taskId?: string; contextId?: string; messageId?: string } = {},
): Record<string, unknown> {
  const messageId = extra.messageId ?? crypto.randomUUID();
  const ids = {
    ...(extra.taskId ? { taskId: extra.taskId } : {}),
    ...(extra.contextId ? { contextId: extra.contextId } : {}),
  };
  return version === '1.0'
    ? { messageId, role: 'ROLE_USER', parts: [{ text }], ...ids }
    : { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text }], ...ids };
}

/** Method names per version. */
export const METHODS = {
  '0.3': {
    send: 'message/send',
    stream: 'message/stream',
    get: 'tasks/get',
    cancel: 'tasks/cancel',
    subscribe: 'tasks/resubscribe',
  },
  '1.0': {
    send: 'SendMessage',
    stream: 'SendStreamingMessage',
    get: 'GetTask',
    cancel: 'CancelTask',
    subscribe: 'SubscribeToTask',
  },
} as const;

/** The Task inside a send result (v1 wraps it in `{task}`). */
export function taskOf(version: Version, result: Wire): Wire {
  return version === '1.0' ? result.task : result;
}

/** The state name in the internal (v0.3) spelling, whatever the wire version. */
export function stateOf(task: { status: { state: string } }): string {
  const s = task.status.state;
  return s.startsWith('TASK_STATE_') ? s.slice('TASK_STATE_'.length).toLowerCase().replace('_', '-') : s;
}

/** What one stream event is, in either version: task | status | artifact, with the state for status. */
export function describeEvent(
  version: Version,
  e: SseEvent,
): { kind: string; state?: string; final?: boolean; result: Wire } {
  const r = e.data.result;
  if (version === '1.0') {
    if (r.task) return { kind: 'task', state: stateOf(r.task), result: r.task };
    if (r.statusUpdate) return { kind: 'status', state: stateOf(r.statusUpdate), result: r.statusUpdate };
    if (r.artifactUpdate) return { kind: 'artifact', result: r.artifactUpdate };
    return { kind: 'message', result: r.message };
  }
  if (r.kind === 'task') return { kind: 'task', state: r.status.state, result: r };
  if (r.kind === 'status-update') return { kind: 'status', state: r.status.state, final: r.final, result: r };
  if (r.kind === 'artifact-update') return { kind: 'artifact', result: r };
  return { kind: r.kind, result: r };
}
