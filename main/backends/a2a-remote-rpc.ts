/**
 * Hand-written JSON-RPC 2.0 over fetch to a remote A2A peer (the official SDK is a dev dependency only):
 * one call, or an SSE stream of JSON-RPC responses (A2A JSON-RPC binding: every event is one
 * `data: <response>` line; errors before the first event come back as plain JSON, later ones as
 * `event: error`). Failures become PeerErrors that say whether a retry can help.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { JsonRpcReplySchema } from '../schema/a2a-remote.js';
import { isAbort, safeJson } from './fetch-util.js';

export class PeerError extends Error {
  readonly retryable: boolean;
  /** The peer's JSON-RPC error code, when it answered with one. */
  readonly code: number | undefined;
  /** True when the peer was never reached (no HTTP answer at all). */
  readonly unreachable: boolean;

  constructor(message: string, opts: { retryable: boolean; code?: number; unreachable?: boolean }) {
    super(message);
    this.name = 'PeerError';
    this.retryable = opts.retryable;
    this.code = opts.code;
    this.unreachable = opts.unreachable ?? false;
  }
}

/** Queue full, rate limited (contactor -32064/-32065) and internal errors may pass; the rest will not. */
const RETRYABLE_CODES = new Set([-32603, -32064, -32065]);

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? err.message;
}

/** fetch with the peer's HTTP failures classified; aborts are rethrown as they are. */
export async function peerFetch(url: string, init: RequestInit, doing: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new PeerError(`could not ${doing} at ${url}: ${causeOf(err)}`, { retryable: true, unreachable: true });
  }
  if (res.ok) return res;
  await res.body?.cancel().catch(() => undefined);
  const auth = res.status === 401 || res.status === 403;
  const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
  const hint = auth ? ' (the peer refused our credentials: check token_env and the token it names)' : '';
  throw new PeerError(`could not ${doing}: ${url} answered HTTP ${res.status}${hint}`, { retryable });
}

export interface StreamFrame {
  /** The SSE `id:` (a contactor peer sends its event sequence number), for resuming. */
  id?: string;
  result: unknown;
}

export class PeerRpc {
  constructor(
    private readonly endpoint: string,
    private readonly headers: () => Record<string, string>,
  ) {}

  async call(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const res = await this.post(method, params, signal, 'application/json');
    const reply = JsonRpcReplySchema.safeParse(await res.json().catch(() => undefined));
    if (!reply.success) throw new PeerError(`${method}: the peer's reply is not JSON-RPC`, { retryable: false });
    return resultOf(method, reply.data);
  }

  /** The stream's results in order; ends when the peer closes it. A cut connection throws (retryable). */
  async *stream(
    method: string,
    params: unknown,
    signal: AbortSignal,
    lastEventId?: string,
  ): AsyncGenerator<StreamFrame> {
    const res = await this.post(method, params, signal, 'text/event-stream', lastEventId);
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // An error detected before the first event comes back as one JSON document.
      const reply = JsonRpcReplySchema.safeParse(await res.json().catch(() => undefined));
      if (!reply.success)
        throw new PeerError(`${method}: the peer's reply is neither SSE nor JSON-RPC`, { retryable: false });
      yield { result: resultOf(method, reply.data) };
      return;
    }
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        while (events.length) {
          const event = events.shift()!;
          const reply = JsonRpcReplySchema.safeParse(safeJson(event.data));
          if (!reply.success)
            throw new PeerError(`${method}: a stream event is not JSON-RPC: ${event.data.slice(0, 120)}`, {
              retryable: true,
            });
          yield { ...(event.id !== undefined ? { id: event.id } : {}), result: resultOf(method, reply.data) };
        }
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (isAbort(err) || signal.aborted) throw err;
          throw new PeerError(`${method}: the stream broke (${causeOf(err)})`, { retryable: true });
        }
        if (chunk.done) return;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    } finally {
      void reader.cancel().catch(() => undefined);
    }
  }

  private post(
    method: string,
    params: unknown,
    signal: AbortSignal,
    accept: string,
    lastEventId?: string,
  ): Promise<Response> {
    return peerFetch(
      this.endpoint,
      {
        method: 'POST',
        headers: {
          ...this.headers(),
          'content-type': 'application/json',
          accept,
          ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: crypto.randomUUID(), method, params }),
        signal,
      },
      `call ${method}`,
    );
  }
}

function resultOf(
  method: string,
  reply: { result?: unknown; error?: { code: number; message: string } | undefined },
): unknown {
  if (reply.error) {
    throw new PeerError(`${method} failed at the peer: ${reply.error.message} (code ${reply.error.code})`, {
      retryable: RETRYABLE_CODES.has(reply.error.code),
      code: reply.error.code,
    });
  }
  return reply.result;
}
