/**
 * The `fetch` the official A2A client (@a2a-js/sdk) is given for one remote peer: it adds our
 * credentials and the turn's abort signal, says which HTTP failures a retry can help with (PeerError),
 * and notes each SSE event's `id:`, which the SDK's own SSE reader drops (sse_utils.ts
 * `parseSseStream` reads only `event:` and `data:`) but a contactor peer resumes after
 * (Last-Event-ID, docs/contract.md#streaming).
 */
import { createParser } from 'eventsource-parser';
import { isAbort } from '../shared/fetch-util.js';

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

export interface PeerFetchOptions {
  /**
   * Set on every request (the bearer token), read per request so a changed token is used at once;
   * `undefined` takes a header the SDK sets away.
   */
  headers: () => Record<string, string | undefined>;
  /** For requests the SDK sends without a signal (the card read). */
  signal?: AbortSignal;
  /** What a failure message says we tried, when the request is not a JSON-RPC call. */
  doing?: string;
  /** Each SSE event's `id` (undefined when it has none), in the order the events arrive. */
  onEventId?: (id: string | undefined) => void;
}

export function peerFetch(opts: PeerFetchOptions): typeof fetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = methodOf(init.body);
    const doing = opts.doing ?? `call ${method}`;
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(opts.headers())) {
      if (value === undefined) headers.delete(name);
      else headers.set(name, value);
    }
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers, signal: init.signal ?? opts.signal ?? null });
    } catch (err) {
      if (isAbort(err)) throw err;
      throw new PeerError(`could not ${doing} at ${url}: ${causeOf(err)}`, { retryable: true, unreachable: true });
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const auth = res.status === 401 || res.status === 403;
      const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
      const hint = auth ? ' (the peer refused our credentials: check token_env and the token it names)' : '';
      throw new PeerError(`could not ${doing}: ${url} answered HTTP ${res.status}${hint}`, { retryable });
    }
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    return new Response(watched(res.body, method, opts.onEventId), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/**
 * The SSE body as it arrives, with a cut connection turned into a retryable PeerError (the SDK passes
 * a read error through unchanged) and each event's id handed to `onEventId`.
 */
function watched(
  body: ReadableStream<Uint8Array>,
  method: string,
  onEventId: ((id: string | undefined) => void) | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // The SDK's reader yields only events with data (an empty `data:` too), and so this counts them.
  const parser = onEventId ? createParser({ onEvent: (event) => event.data !== '' && onEventId(event.id) }) : undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        controller.error(
          isAbort(err) ? err : new PeerError(`${method}: the stream broke (${causeOf(err)})`, { retryable: true }),
        );
        return;
      }
      if (chunk.done) {
        controller.close();
        return;
      }
      parser?.feed(decoder.decode(chunk.value, { stream: true }));
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** The JSON-RPC method the SDK put in the body (for messages only). */
function methodOf(body: unknown): string {
  try {
    const method = (JSON.parse(String(body)) as { method?: unknown }).method;
    return typeof method === 'string' ? method : 'the peer';
  } catch {
    return 'the peer';
  }
}

export function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? err.message;
}
