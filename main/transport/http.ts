/**
 * The Koa adapter: body, headers, SSE and the request gate. No protocol logic lives here.
 */
import { createHash } from 'node:crypto';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { PassThrough } from 'node:stream';
import type { TaskEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { AgentCardV1 } from '../schema/card.js';
import { toV03Card } from './cards.js';
import { failure, type JsonRpcEndpoint } from './jsonrpc.js';
import { discardBody } from './drain-body.js';
import type { CallerRateLimit } from './rate-limit.js';
import { bearerMatches, gateRequest, type GatePolicy } from './request-gate.js';
import { RpcError } from './rpc-errors.js';
import type { ProtocolVersion, RpcCall } from './rpc-types.js';
import { SSE_HEADERS, parseLastEventId, writeSseEvent } from './sse.js';

export interface BridgeInfo {
  health(): Record<string, unknown>;
  bridgeCard(): unknown;
  /** undefined when no such agent. */
  agentCard(name: string): unknown;
  listenFeed(listener: (event: TaskEvent, task: Task) => void): () => void;
}

export interface HttpOptions {
  endpoint: JsonRpcEndpoint;
  info: BridgeInfo;
  policy: GatePolicy;
  /** Required as a bearer token on JSON-RPC and the event feed when set. */
  token?: string;
  maxBodyBytes: number;
  /** Checked on every JSON-RPC POST after the token, before dispatch. */
  rateLimit?: CallerRateLimit;
  /** Told about every request refused before dispatch (the audit log). Must not throw. */
  onRefused?: (details: RefusedRequest) => void;
}

export interface RefusedRequest {
  reason: string;
  status: number;
  method: string;
  path: string;
  remote: string;
  host?: string;
  origin?: string;
  caller?: string;
}

/** How much of a refused body is read and thrown away before the connection is cut instead. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

const AGENT_PATH = /^\/agents\/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})(\/\.well-known\/agent-card\.json|\/?)$/;

export function createHttpApp(opts: HttpOptions): Koa {
  const app = new Koa();
  // Cards change only with the config, which builds a new app: this instant is their Last-Modified.
  const cardsSince = new Date();
  app.silent = true;

  const deny = (ctx: Koa.Context, status: number, err: RpcError, reason: string, caller?: string): void => {
    opts.onRefused?.({
      reason,
      status,
      method: ctx.method,
      path: ctx.path,
      remote: ctx.req.socket.remoteAddress ?? 'unknown',
      ...(ctx.get('host') ? { host: ctx.get('host') } : {}),
      ...(ctx.get('origin') ? { origin: ctx.get('origin') } : {}),
      ...(caller ? { caller } : {}),
    });
    refuse(ctx, status, err);
  };

  app.use(async (ctx) => {
    const refusal = gateRequest(
      {
        method: ctx.method,
        url: ctx.url,
        host: ctx.get('host') || undefined,
        origin: ctx.get('origin') || undefined,
        contentType: ctx.get('content-type') || undefined,
      },
      opts.policy,
    );
    if (refusal) return deny(ctx, refusal.status, new RpcError(refusal.code, refusal.message), refusal.reason);

    const path = ctx.path;
    const agentMatch = AGENT_PATH.exec(path);
    if (ctx.method === 'GET') {
      if (path === '/health') return sendJson(ctx, opts.info.health());
      if (path === '/.well-known/agent-card.json' || path === '/.well-known/agent.json')
        return sendCard(ctx, opts.info.bridgeCard(), cardsSince);
      if (agentMatch && agentMatch[2] !== '/' && agentMatch[2] !== '') {
        const card = opts.info.agentCard(agentMatch[1]!);
        return card === undefined ? notFound(ctx) : sendCard(ctx, card, cardsSince);
      }
      if (path === '/events') {
        if (!authorized(ctx, opts)) return deny(ctx, 401, unauthorized(), 'unauthorized');
        return streamFeed(ctx, opts.info);
      }
      return notFound(ctx);
    }
    if (ctx.method !== 'POST')
      return deny(
        ctx,
        405,
        new RpcError(-32600, `${ctx.method} is not supported; POST JSON-RPC to / or /agents/<name>`),
        'method-not-allowed',
      );
    if (path !== '/' && !(agentMatch && (agentMatch[2] === '' || agentMatch[2] === '/'))) return notFound(ctx);
    if (agentMatch && opts.info.agentCard(agentMatch[1]!) === undefined) return notFound(ctx);
    if (!authorized(ctx, opts)) return deny(ctx, 401, unauthorized(), 'unauthorized');

    const version = negotiateVersion(ctx.get('a2a-version') || (ctx.query['A2A-Version'] as string | undefined));
    let body: string;
    try {
      body = await getRawBody(ctx.req, { limit: opts.maxBodyBytes, encoding: 'utf8' });
    } catch (err) {
      const tooLarge = (err as { type?: string }).type === 'entity.too.large';
      await discardBody(ctx.req, DISCARD_LIMIT_BYTES);
      const refusal = new RpcError(
        -32600,
        tooLarge ? `request body over the ${opts.maxBodyBytes}-byte limit` : 'could not read the request body',
      );
      return deny(ctx, tooLarge ? 413 : 400, refusal, tooLarge ? 'body-too-large' : 'unreadable-body');
    }
    const rate = opts.rateLimit?.check(body, ctx.req.socket.remoteAddress ?? 'unknown');
    if (rate && !rate.ok) {
      ctx.set('Retry-After', String(Math.ceil(rate.retryAfterMs / 1000)));
      const limited = new RpcError(
        -32065,
        `too many requests from ${rate.caller}; retry in ${Math.ceil(rate.retryAfterMs / 1000)} s (rate_limit_per_minute)`,
        {
          retryAfterMs: rate.retryAfterMs,
        },
      );
      return deny(ctx, 429, limited, 'rate-limited', rate.caller);
    }
    const lastEventId = parseLastEventId(ctx.get('last-event-id') || undefined);
    const call: RpcCall = {
      // -32009 exists only in v1, so it goes out in the v1 error shape (with ErrorInfo).
      ...(version instanceof RpcError ? { version: '1.0', versionError: version } : { version }),
      ...(agentMatch ? { agentFromPath: agentMatch[1]! } : {}),
      ...(lastEventId !== undefined ? { resumeAfter: lastEventId } : {}),
    };
    const outcome = await opts.endpoint.handle(body, call);
    if (outcome.kind === 'json') {
      if (outcome.body === undefined) {
        ctx.status = 204;
        return;
      }
      return sendJson(ctx, outcome.body);
    }
    const stream = new PassThrough();
    ctx.status = 200;
    ctx.set(SSE_HEADERS);
    ctx.body = stream;
    // Node holds the headers back until the first body byte; a resubscribe whose cursor is already
    // current has no event to send yet, and its client would wait for headers instead of events.
    stream.write(': contactor task stream\n\n');
    // `start` may end the stream synchronously (a replay that reaches the end), before it returns.
    const handle: { stop?: () => void; ended: boolean } = { ended: false };
    const stopStream = (): void => {
      if (handle.ended) return;
      handle.ended = true;
      handle.stop?.();
      stream.end();
    };
    handle.stop = outcome.reply.start((result, seq) => {
      if (!writeSseEvent(stream, { jsonrpc: '2.0', id: outcome.id, result }, { id: seq })) stopStream();
    }, stopStream);
    if (handle.ended) handle.stop();
    ctx.req.on('close', stopStream);
  });
  return app;
}

function negotiateVersion(header: string | undefined): ProtocolVersion | RpcError {
  const v = (header ?? '').trim();
  if (v === '' || /^0\.3(\.\d+)?$/.test(v)) return '0.3';
  if (/^1\.0(\.\d+)?$/.test(v)) return '1.0';
  return new RpcError(-32009, `A2A version "${v}" is not supported; this bridge speaks 1.0 and 0.3`);
}

function authorized(ctx: Koa.Context, opts: HttpOptions): boolean {
  return opts.token === undefined || bearerMatches(ctx.get('authorization') || undefined, opts.token);
}

function unauthorized(): RpcError {
  return new RpcError(
    -32066,
    'missing or wrong bearer token; the CLI finds it automatically — see `contactor token` to give it to another client',
  );
}

function refuse(ctx: Koa.Context, status: number, err: RpcError): void {
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.body = failure(null, err, { version: '0.3' });
}

function notFound(ctx: Koa.Context): void {
  refuse(
    ctx,
    404,
    new RpcError(-32601, `nothing at ${ctx.method} ${ctx.path}; POST JSON-RPC to / or /agents/<name>, or GET /health`),
  );
}

function sendJson(ctx: Koa.Context, body: unknown): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

/**
 * The v1 card by default (it must satisfy the v1 schema, A2A v1 §8); the v0.3 shape for a client that
 * asks for 0.3 explicitly or uses the 0.2-era path `/.well-known/agent.json`. Cached per v1 §8.6.
 */
function sendCard(ctx: Koa.Context, card: unknown, since: Date): void {
  const legacy = /^0\.3(\.\d+)?$/.test(ctx.get('a2a-version').trim()) || ctx.path.endsWith('/agent.json');
  const body = JSON.stringify(legacy ? toV03Card(card as AgentCardV1) : card);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('Cache-Control', 'max-age=60');
  ctx.set('Vary', 'A2A-Version');
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', since.toUTCString());
  if (ctx.get('if-none-match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = body;
}

/** The bridge-wide feed: every task event, for the desktop shell and `contactor watch`. */
function streamFeed(ctx: Koa.Context, info: BridgeInfo): void {
  const stream = new PassThrough();
  ctx.status = 200;
  ctx.set(SSE_HEADERS);
  ctx.body = stream;
  stream.write(': contactor event feed\n\n');
  const stop = info.listenFeed((event, task) => {
    const ok = writeSseEvent(
      stream,
      { event, agent: task.metadata.agent, state: task.status.state },
      { event: event.kind },
    );
    if (!ok) close();
  });
  const close = (): void => {
    stop();
    stream.end();
  };
  ctx.req.on('close', close);
}
