/**
 * JSON-RPC over POST on plain node:http request and response objects: no framework between the socket
 * and the method. The request gate and the route (http.ts) run before this; from here on: agent, token, version, body limit,
 * rate limit, then the JSON or SSE reply — every refusal reported through `onRefused`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { identityLabel, type Identity } from '../domain/authority.js';
import getRawBody from 'raw-body';
import { discardBody } from './drain-body.js';
import type { HttpOptions, RefusedRequest } from './http-options.js';
import { failure } from './jsonrpc.js';
import { bucketOf, identityOf } from './caller-tokens.js';
import { unknownAgent } from '../domain/errors.js';
import { peekRequestId, type PeekedId } from './peek-id.js';
import { REASON_CODES, RpcError } from './rpc-errors.js';
import { parseBody, type ProtocolVersion, type RpcCall } from './rpc-types.js';
import { SSE_HEADERS, parseLastEventId, writeSseEvent } from './sse.js';

/** How much of a refused body is read and thrown away before the connection is cut instead. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The body's text: bad bytes become U+FFFD and a leading BOM goes, as raw-body's own decoding (iconv-lite)
 * did, without its per-request decoder.
 */
const UTF8 = new TextDecoder('utf-8');

/** An `A2A-Version` that means 0.3 (`0.3`, `0.3.x`). */
export const V03_VERSION = /^0\.3(\.\d+)?$/;

/** Where a POST was sent, as the router parsed it. */
export interface PostTarget {
  path: string;
  /** The agent of `/agents/<name>`; undefined for `/`. */
  agent: string | undefined;
  /** The `A2A-Version` query parameter, the fallback for clients that cannot set the header. */
  versionParam: string | undefined;
}

export async function handleRpcPost(
  req: IncomingMessage,
  res: ServerResponse,
  target: PostTarget,
  opts: HttpOptions,
): Promise<void> {
  const { path } = target;
  const deny = (
    status: number,
    err: RpcError,
    reason: string,
    extra: { caller?: string; headers?: Record<string, string>; id?: PeekedId['id'] } = {},
  ): void => {
    opts.onRefused?.(refusedRequest(req, path, status, reason, extra.caller));
    sendJson(res, status, failure(extra.id ?? null, err, { version: '0.3' }), {
      ...(status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}),
      ...extra.headers,
    });
  };

  const { agent } = target;
  if (agent !== undefined && !opts.info.hasAgent(agent)) return unknownAgentAt(req, res, agent, target, opts);
  const caller = opts.tokens?.identify(req.headers.authorization || undefined);
  if (opts.tokens !== undefined && caller === undefined) {
    const peeked = await peekRequestId(req, opts.maxBodyBytes);
    return deny(401, unauthorized(), 'unauthorized', { id: peeked.id, headers: closeUnlessRead(peeked) });
  }
  const identity = identityOf(caller);
  if (opts.onAuthenticated && !opts.onAuthenticated(req.socket, identity)) {
    await discardBody(req, DISCARD_LIMIT_BYTES);
    return deny(503, callerOverCap(identity), 'caller-over-cap', {
      caller: identityLabel(identity),
      headers: { 'Retry-After': '1', Connection: 'close' },
    });
  }

  const version = negotiateVersion((req.headers['a2a-version'] as string | undefined) || target.versionParam);
  let body: string;
  try {
    body = UTF8.decode(await getRawBody(req, { limit: opts.maxBodyBytes }));
  } catch (err) {
    const tooLarge = (err as { type?: string }).type === 'entity.too.large';
    await discardBody(req, DISCARD_LIMIT_BYTES);
    const refusal = new RpcError(
      -32600,
      tooLarge
        ? `request body over the ${opts.maxBodyBytes}-byte limit (max_body_bytes in config.yaml); send large content as a file part, or raise the limit`
        : 'could not read the request body',
    );
    return deny(tooLarge ? 413 : 400, refusal, tooLarge ? 'body-too-large' : 'unreadable-body');
  }
  const parsed = parseBody(body);
  const rate = opts.rateLimit?.check(parsed, bucketOf(caller, req.socket.remoteAddress ?? 'unknown'));
  if (rate && !rate.ok) {
    const limited = new RpcError(REASON_CODES['rate-limited'], rate.message, { retryAfterMs: rate.retryAfterMs });
    const headers = { 'Retry-After': String(rate.retryAfterS) };
    return deny(429, limited, 'rate-limited', { caller: rate.caller, headers });
  }
  const lastEventId = parseLastEventId((req.headers['last-event-id'] as string | undefined) || undefined);
  const call: RpcCall = {
    // -32009 exists only in v1, so it goes out in the v1 error shape (with ErrorInfo).
    ...(version instanceof RpcError ? { version: '1.0', versionError: version } : { version }),
    ...(agent !== undefined ? { agentFromPath: agent } : {}),
    ...(caller?.kind === 'agent' ? { callerAgent: caller.agent } : {}),
    identity,
    onNotPermitted: (method) =>
      opts.onRefused?.(refusedRequest(req, path, 200, `not-permitted: ${method}`, identityLabel(identity))),
    ...(lastEventId !== undefined ? { resumeAfter: lastEventId } : {}),
  };
  const outcome = await opts.endpoint.handle(parsed, call);
  if (outcome.kind === 'json') {
    if (outcome.body === undefined) {
      res.writeHead(204);
      res.end();
      return;
    }
    return outcome.text === undefined ? sendJson(res, 200, outcome.body) : sendText(res, 200, outcome.text);
  }
  if (outcome.kind === 'stream-error') {
    res.writeHead(200, SSE_HEADERS);
    writeSseEvent(res, outcome.body, { event: 'error' });
    res.end();
    return;
  }
  res.writeHead(200, SSE_HEADERS);
  // Node holds the headers back until the first body byte; a resubscribe whose cursor is already
  // current has no event to send yet, and its client would wait for headers instead of events.
  res.write(': contactor task stream\n\n');
  // `start` may end the stream synchronously (a replay that reaches the end), before it returns.
  const handle: { stop?: () => void; ended: boolean } = { ended: false };
  const stopStream = (): void => {
    if (handle.ended) return;
    handle.ended = true;
    handle.stop?.();
    res.end();
  };
  handle.stop = outcome.reply.start((result, seq) => {
    if (!writeSseEvent(res, { jsonrpc: '2.0', id: outcome.id, result }, { id: seq })) stopStream();
  }, stopStream);
  if (handle.ended) handle.stop();
  // `res`, not `req`: Node emits the request's 'close' once its body is read, long before a disconnect.
  res.on('close', stopStream);
}

/** Like Koa's default: an unexpected throw is a bare 500 (details never leave the process). */
export function internalError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = 'Internal Server Error';
  res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function refusedRequest(
  req: IncomingMessage,
  path: string,
  status: number,
  reason: string,
  caller?: string,
): RefusedRequest {
  const { host, origin } = req.headers;
  return {
    reason,
    status,
    method: req.method ?? '',
    path,
    remote: req.socket.remoteAddress ?? 'unknown',
    ...(host ? { host } : {}),
    ...(origin ? { origin } : {}),
    ...(caller ? { caller } : {}),
  };
}

export function negotiateVersion(header: string | undefined): ProtocolVersion | RpcError {
  const v = (header ?? '').trim();
  if (v === '' || V03_VERSION.test(v)) return '0.3';
  if (/^1\.0(\.\d+)?$/.test(v)) return '1.0';
  return new RpcError(-32009, `A2A version "${v}" is not supported; this bridge speaks 1.0 and 0.3`);
}

/** A caller over its share of connections (connection-guard.ts): what to close, and that it may retry. */
export function callerOverCap(who: Identity): RpcError {
  return new RpcError(
    -32065,
    `too many connections held by ${identityLabel(who)}; close some of its streams or idle connections, then retry`,
    { retryAfterMs: 1000 },
  );
}

export function unauthorized(): RpcError {
  return new RpcError(
    -32066,
    'missing or wrong bearer token; the CLI finds it automatically — see `contactor token` to give it to another client',
  );
}

export function notFoundError(method: string, path: string): RpcError {
  return new RpcError(-32601, `nothing at ${method} ${path}; POST JSON-RPC to / or /agents/<name>, or GET /health`);
}

/**
 * `POST /agents/<name>` for an agent that is not configured: 404 (no such endpoint, as its card's GET
 * answers), with the words and code `/` gives for the same name in `metadata.agent` (-32060 listing
 * the agents), in the shape of the request's protocol version. The agent list is public (the root card).
 */
async function unknownAgentAt(
  req: IncomingMessage,
  res: ServerResponse,
  agent: string,
  target: PostTarget,
  opts: HttpOptions,
): Promise<void> {
  const negotiated = negotiateVersion((req.headers['a2a-version'] as string | undefined) || target.versionParam);
  const version = negotiated instanceof RpcError ? '1.0' : negotiated;
  const peeked = await peekRequestId(req, opts.maxBodyBytes);
  sendJson(res, 404, failure(peeked.id, unknownAgentError(agent, opts.info.agentNames()), { version }), {
    ...closeUnlessRead(peeked),
  });
}

/** -32060 in the words of the registry (domain/errors.ts `unknownAgent`), for routes outside JSON-RPC too. */
export function unknownAgentError(agent: string, known: readonly string[]): RpcError {
  const err = unknownAgent(agent, known);
  return new RpcError(REASON_CODES[err.reason], err.message, err.data);
}

/** A body left partly unread is not drained: the refusal closes the connection instead. */
function closeUnlessRead(peeked: PeekedId): Record<string, string> {
  return peeked.read ? {} : { Connection: 'close' };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON.stringify(value), headers);
}

/**
 * The body goes to `end` as a string: Node's OutgoingMessage puts the header in front of a string body and
 * the socket gets one write, where a Buffer body leaves as a `writev` of two (docs/benchmark.md#the-http-edge).
 */
function sendText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
