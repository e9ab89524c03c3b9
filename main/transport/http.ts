/**
 * The HTTP adapter: the request gate first, then JSON-RPC POSTs on plain node:http (rpc-post.ts, the
 * hot path) and everything else (health, cards, the event feed, refusals) on Koa. No protocol logic
 * lives here.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import Koa from 'koa';
import { PassThrough } from 'node:stream';
import type { TaskEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { AgentCardV1 } from '../schema/card.js';
import { toV03Card } from './cards.js';
import { failure, type JsonRpcEndpoint } from './jsonrpc.js';
import type { CallerTokens } from './caller-tokens.js';
import type { CallerRateLimit } from './rate-limit.js';
import { gateRequest, type GatePolicy, type GateRefusal } from './request-gate.js';
import { RpcError } from './rpc-errors.js';
import {
  AGENT_PATH,
  V03_VERSION,
  handleRpcPost,
  internalError,
  notFoundError,
  refusedRequest,
  sendJson as sendRawJson,
  unauthorized,
} from './rpc-post.js';
import { SSE_HEADERS, writeSseEvent } from './sse.js';

export interface BridgeInfo {
  health(): Record<string, unknown>;
  bridgeCard(): unknown;
  /** undefined when no such agent. */
  agentCard(name: string): unknown;
  /** Whether an agent of this name is configured (cheap: every POST to /agents/<name> asks). */
  hasAgent(name: string): boolean;
  listenFeed(listener: (event: TaskEvent, task: Task) => void): () => void;
}

export interface HttpOptions {
  endpoint: JsonRpcEndpoint;
  info: BridgeInfo;
  policy: GatePolicy;
  /** When set, JSON-RPC and the event feed need one of these bearer tokens; it names the caller. */
  tokens?: CallerTokens;
  maxBodyBytes: number;
  /** Checked on every JSON-RPC POST after the token, before dispatch. */
  rateLimit?: CallerRateLimit;
  /** Told about every request refused before dispatch (the audit log). Must not throw. */
  onRefused?: (details: RefusedRequest) => void;
  /**
   * When set, an authorized `POST /shutdown` asks the host to stop the bridge cleanly (`contactor down`):
   * Windows has no SIGTERM, and Node's process.kill there ends a process abruptly.
   */
  onShutdownRequested?: () => void;
  /** Told when a connection carried a request with a valid token (connection-guard.ts). */
  onAuthenticated?: (socket: Socket) => void;
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

/** An origin-form URL whose path and query need no further parsing (what every client sends). */
const SIMPLE_URL = /^\/(?!\/)[^?#\s]*(\?[^#\s]*)?$/;

/**
 * The request handler for node:http. A POST with a plain URL goes straight to the JSON-RPC handler
 * after the gate; anything else (and any URL the fast path would have to interpret) goes through Koa,
 * whose middleware runs the same gate and hands POSTs to the same handler.
 */
export function createHttpHandler(opts: HttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const koa = createHttpApp(opts).callback();
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !SIMPLE_URL.test(url)) return void koa(req, res);
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (path === '/shutdown') return void koa(req, res);
    const refusal = gateRequest(
      {
        method: 'POST',
        url,
        host: req.headers.host || undefined,
        origin: req.headers.origin || undefined,
        contentType: req.headers['content-type'] || undefined,
      },
      opts.policy,
    );
    if (refusal) return refuseAtGate(req, res, path, refusal, opts);
    const versionParam =
      query < 0 ? undefined : (parseQuery(url.slice(query + 1))['A2A-Version'] as string | undefined);
    handleRpcPost(req, res, { path, versionParam }, opts).catch(() => internalError(res));
  };
}

function refuseAtGate(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  refusal: GateRefusal,
  opts: HttpOptions,
): void {
  opts.onRefused?.(refusedRequest(req, path, refusal.status, refusal.reason));
  sendRawJson(res, refusal.status, failure(null, new RpcError(refusal.code, refusal.message), { version: '0.3' }));
}

export function createHttpApp(opts: HttpOptions): Koa {
  const app = new Koa();
  // Cards change only with the config, which builds a new app: this instant is their Last-Modified.
  const cardsSince = new Date();
  app.silent = true;

  const deny = (ctx: Koa.Context, status: number, err: RpcError, reason: string): void => {
    opts.onRefused?.(refusedRequest(ctx.req, ctx.path, status, reason));
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
        opts.onAuthenticated?.(ctx.req.socket);
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
    if (path === '/shutdown' && opts.onShutdownRequested) {
      if (!authorized(ctx, opts)) return deny(ctx, 401, unauthorized(), 'unauthorized');
      ctx.status = 202;
      ctx.body = { stopping: true };
      // After the reply is written: stopping closes the listener and this connection with it.
      ctx.res.once('finish', opts.onShutdownRequested);
      return;
    }
    // Koa steps aside: the JSON-RPC handler writes the response itself (see createHttpHandler).
    ctx.respond = false;
    const versionParam = ctx.query['A2A-Version'] as string | undefined;
    await handleRpcPost(ctx.req, ctx.res, { path, versionParam }, opts).catch(() => internalError(ctx.res));
  });
  return app;
}

function authorized(ctx: Koa.Context, opts: HttpOptions): boolean {
  return opts.tokens === undefined || opts.tokens.identify(ctx.get('authorization') || undefined) !== undefined;
}

function refuse(ctx: Koa.Context, status: number, err: RpcError): void {
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.body = failure(null, err, { version: '0.3' });
}

function notFound(ctx: Koa.Context): void {
  refuse(ctx, 404, notFoundError(ctx.method, ctx.path));
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
  const legacy = V03_VERSION.test(ctx.get('a2a-version').trim()) || ctx.path.endsWith('/agent.json');
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
