/**
 * The HTTP edge. Every request meets the request gate first (the only place it runs); then a JSON-RPC
 * POST (`POST /`, `POST /agents/<name>`) goes straight from node:http to its handler (rpc-post.ts), and
 * everything else (health, cards, the event feed, shutdown, 404) to one Koa app with one router
 * (@koa/router). The POST path has no framework layer because it is the one every send pays for: Koa,
 * the router and their middleware chain took ~8% of a blocking send's CPU in a profile at 8 concurrent sends.
 * No protocol logic lives here.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import type { AgentCardV1 } from '../schema/card.js';
import { AGENT_NAME } from '../schema/config.js';
import { identityLabel, refusal, type Action, type Identity } from '../domain/authority.js';
import { bucketOf, identityOf, type Caller } from './caller-tokens.js';
import { toDualCard } from './cards.js';
import type { BridgeInfo, HttpOptions } from './http-options.js';
import { failure } from './jsonrpc.js';
import { gateRequest } from './request-gate.js';
import { REASON_CODES, RpcError } from './rpc-errors.js';
import {
  V03_VERSION,
  callerOverCap,
  handleRpcPost,
  internalError,
  notFoundError,
  refusedRequest,
  sendJson as sendJsonRaw,
  unauthorized,
  unknownAgentError,
  type PostTarget,
} from './rpc-post.js';
import { SSE_HEADERS, writeSseEvent } from './sse.js';
import type { FeedEntry } from '../runtime/event-feed.js';

const NAME = AGENT_NAME.source.slice(1, -1);
/** An agent's JSON-RPC endpoint, `/agents/<name>` or `/agents/<name>/`; the name as in config, never decoded. */
const AGENT_ENDPOINT = new RegExp(`^/agents/(${NAME})/?$`);
const AGENT_CARD = new RegExp(`^/agents/(${NAME})/\\.well-known/agent-card\\.json$`);
/**
 * Every route but the JSON-RPC POSTs (whose methods have theirs in method-actions.ts): the authority action
 * it asks about once the token proved who calls, or `no token`: what anyone may read, the cards and health
 * (SECURITY.md#who-may-do-what, "discover agents"). `routes` registers each under its name here, and a
 * route with an action is served through `guarded` only.
 */
export const HTTP_ROUTES = {
  'GET /health': 'no token',
  'GET /.well-known/agent-card.json': 'no token',
  'GET /.well-known/agent.json': 'no token',
  'GET /agents/<name>/.well-known/agent-card.json': 'no token',
  'GET /events': 'follow every task',
  'POST /shutdown': 'stop the bridge',
  'POST /mcp': 'call MCP tools',
  'GET /mcp': 'call MCP tools',
} as const satisfies Record<string, Action | 'no token'>;

type HttpRoute = keyof typeof HTTP_ROUTES;
type GuardedRoute = { [R in HttpRoute]: (typeof HTTP_ROUTES)[R] extends Action ? R : never }[HttpRoute];
type OpenRoute = Exclude<HttpRoute, GuardedRoute>;

/** Refusals before any version is known go out in the v0.3 error shape. */
const V03 = { version: '0.3' } as const;

/** The request handler for node:http. */
export function createHttpHandler(opts: HttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const app = new Koa();
  app.silent = true;
  app.use(routes(opts).routes());
  app.use((ctx) => notFound(ctx));
  const rest = app.callback();
  return (req, res) => {
    const url = req.url ?? '/';
    const { host, origin } = req.headers;
    const refused = gateRequest(
      {
        method: req.method ?? '',
        url,
        host: host || undefined,
        origin: origin || undefined,
        contentType: req.headers['content-type'] || undefined,
      },
      opts.policy,
    );
    if (refused) {
      opts.onRefused?.(refusedRequest(req, pathOf(url), refused.status, refused.reason));
      return sendJsonRaw(res, refused.status, failure(null, new RpcError(refused.code, refused.message), V03));
    }
    const target = req.method === 'POST' ? rpcTarget(url) : undefined;
    if (!target) return void rest(req, res);
    handleRpcPost(req, res, target, opts).catch(() => internalError(res));
  };
}

/** Where a JSON-RPC POST goes, or undefined when the URL is no JSON-RPC endpoint (Koa answers it). */
function rpcTarget(url: string): PostTarget | undefined {
  const { path, query } = splitUrl(url);
  const agent = path === '/' ? undefined : AGENT_ENDPOINT.exec(path)?.[1];
  if (path !== '/' && agent === undefined) return undefined;
  const versionParam = query ? (new URLSearchParams(query).get('A2A-Version') ?? undefined) : undefined;
  return { path, agent, versionParam };
}

/** A request URL's path and query, as Koa reads them (`ctx.path`, `ctx.querystring`): a fragment is neither. */
const URL_PARTS = /^([^?#]*)(?:\?([^#]*))?/;

function splitUrl(url: string): { path: string; query: string | undefined } {
  const [, path = '', query] = URL_PARTS.exec(url)!;
  return { path, query };
}

function pathOf(url: string): string {
  return splitUrl(url).path;
}

/** Each route the router serves, by its name in HTTP_ROUTES (the structural test of the authority table reads it). */
export function servedRoutes(opts: HttpOptions): { name: string | undefined; methods: string[] }[] {
  return routes(opts).stack.map((layer) => ({ name: layer.name, methods: layer.methods.filter((m) => m !== 'HEAD') }));
}

/** Every route but the JSON-RPC POSTs; the gate has run (only GET and POST get here). */
function routes(opts: HttpOptions): Router {
  // Cards change only with the config, which builds a new app: this instant is their Last-Modified.
  const cardsSince = new Date();
  const router = new Router({ sensitive: true, strict: true });
  const open = (route: OpenRoute): string => route;
  /**
   * Serves a route with an action at the method and path its name gives: the token, the caller's share of
   * connections, the table's word on the action, then the caller's rate limit, before `serve` (which gets
   * the caller's rate-limit bucket: `/mcp` charges its tools' in-process calls there too).
   */
  const guarded = (route: GuardedRoute, serve: (ctx: Koa.Context, who: Identity, bucket: string) => void): void => {
    const path = route.slice(route.indexOf(' ') + 1);
    const handler = (ctx: Koa.Context): void => {
      const proven = caller(ctx, opts);
      if (!proven) return deny(ctx, opts, 401, unauthorized(), 'unauthorized');
      const { who } = proven;
      if (!admitted(ctx, opts, who) || !permitted(ctx, opts, HTTP_ROUTES[route], who)) return;
      const bucket = bucketOf(proven.caller, ctx.req.socket.remoteAddress ?? 'unknown');
      if (!withinRate(ctx, opts, bucket)) return;
      serve(ctx, who, bucket);
    };
    if (route.startsWith('POST ')) router.post(route, path, handler);
    else router.get(route, path, handler);
  };

  router.get(open('GET /health'), '/health', (ctx) => sendJson(ctx, opts.info.health()));
  router.get(open('GET /.well-known/agent-card.json'), '/.well-known/agent-card.json', (ctx) =>
    sendCard(ctx, opts.info.bridgeCard(), cardsSince),
  );
  router.get(open('GET /.well-known/agent.json'), '/.well-known/agent.json', (ctx) =>
    sendCard(ctx, opts.info.bridgeCard(), cardsSince),
  );
  router.get(open('GET /agents/<name>/.well-known/agent-card.json'), AGENT_CARD, (ctx) => {
    const name = captured(ctx);
    const card = opts.info.agentCard(name);
    // No such agent: 404 with the words POST /agents/<name> and `/` give (-32060 naming the agents).
    if (card === undefined) return refuse(ctx, 404, unknownAgentError(name, opts.info.agentNames()));
    sendCard(ctx, card, cardsSince);
  });
  guarded('GET /events', (ctx) => streamFeed(ctx, opts.info));
  // The MCP front door answers the request itself (its own streams): Koa leaves the response alone.
  const mcp = (ctx: Koa.Context, who: Identity, bucket: string): void => {
    if (!opts.mcp) return refuse(ctx, 404, notFoundError(ctx.method, ctx.path));
    ctx.respond = false;
    opts.mcp(ctx.req, ctx.res, who, bucket).catch(() => internalError(ctx.res));
  };
  guarded('POST /mcp', mcp);
  guarded('GET /mcp', mcp);
  const { onShutdownRequested } = opts;
  if (onShutdownRequested) {
    guarded('POST /shutdown', (ctx) => {
      ctx.status = 202;
      ctx.body = { stopping: true };
      // After the reply is written: stopping closes the listener and this connection with it.
      ctx.res.once('finish', onShutdownRequested);
    });
  }
  return router;
}

/** The agent name a RegExp route captured. */
function captured(ctx: { captures?: string[] }): string {
  return ctx.captures?.[0] ?? '';
}

function deny(ctx: Koa.Context, opts: HttpOptions, status: number, err: RpcError, reason: string, who?: string): void {
  opts.onRefused?.(refusedRequest(ctx.req, ctx.path, status, reason, who));
  refuse(ctx, status, err);
}

/**
 * Who the request's token proves (domain/authority.ts) and the caller behind it (its rate-limit bucket), or
 * undefined when a token is required and wrong.
 */
function caller(ctx: Koa.Context, opts: HttpOptions): { caller: Caller | undefined; who: Identity } | undefined {
  if (opts.tokens === undefined) return { caller: undefined, who: identityOf(undefined) };
  const known = opts.tokens.identify(ctx.get('authorization') || undefined);
  return known && { caller: known, who: identityOf(known) };
}

/** The rate limit's word on one more request of this caller (rate-limit.ts): refused with 429 and -32065. */
function withinRate(ctx: Koa.Context, opts: HttpOptions, bucket: string): boolean {
  const rate = opts.rateLimit?.charge(bucket);
  if (!rate || rate.ok) return true;
  ctx.set('Retry-After', String(rate.retryAfterS));
  const limited = new RpcError(REASON_CODES['rate-limited'], rate.message, { retryAfterMs: rate.retryAfterMs });
  deny(ctx, opts, 429, limited, 'rate-limited', rate.caller);
  return false;
}

/** The connection guard's word on the caller's share of connections (connection-guard.ts). */
function admitted(ctx: Koa.Context, opts: HttpOptions, who: Identity): boolean {
  if (!opts.onAuthenticated || opts.onAuthenticated(ctx.req.socket, who)) return true;
  ctx.set('Retry-After', '1');
  ctx.set('Connection', 'close');
  deny(ctx, opts, 503, callerOverCap(who), 'caller-over-cap', identityLabel(who));
  return false;
}

/** The authority table's word on a route: refused with 403 and -32066, saying who may. */
function permitted(ctx: Koa.Context, opts: HttpOptions, action: Action, who: Identity): boolean {
  const refused = refusal(action, who);
  if (!refused) return true;
  deny(ctx, opts, 403, new RpcError(REASON_CODES.unauthorized, refused.message), 'not-permitted', identityLabel(who));
  return false;
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
 * The pure v1 card for a client that names a 1.x version; without the header (A2A v1 §3.6: 0.3), for
 * 0.3, and at the 0.2-era path `/.well-known/agent.json`, the card both versions read (cards.ts
 * `toDualCard`). Cached per v1 §8.6, varying on the header.
 */
function sendCard(ctx: Koa.Context, card: unknown, since: Date): void {
  const version = ctx.get('a2a-version').trim();
  const dual = version === '' || V03_VERSION.test(version) || ctx.path.endsWith('/agent.json');
  const body = JSON.stringify(dual ? toDualCard(card as AgentCardV1) : card);
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

/**
 * The bridge-wide feed: every task event, for the desktop shell, `contactor watch` and `contactor top`.
 * Each event carries its cursor as the SSE `id:`; a reader that reconnects with it (`Last-Event-ID` or
 * `?since=`) first gets what it missed, or a `reset` event when that is no longer kept
 * (docs/contract.md#the-event-feed).
 */
function streamFeed(ctx: Koa.Context, info: BridgeInfo): void {
  const stream = new PassThrough();
  ctx.status = 200;
  ctx.set(SSE_HEADERS);
  ctx.body = stream;
  stream.write(': contactor event feed\n\n');
  const write = (entry: FeedEntry): boolean =>
    writeSseEvent(
      stream,
      { event: entry.event, agent: entry.agent, state: entry.state },
      { event: entry.event.kind, id: entry.cursor },
    );
  const since = resumeCursor(ctx);
  // Replay and listening start in the same turn: no event falls between them, none comes twice.
  let ok = true;
  if (since !== undefined) {
    const replay = info.feedSince(since);
    if (replay.kind === 'reset') {
      ok = writeSseEvent(
        stream,
        { reason: replay.reason, cursor: info.feedCursor() },
        { event: 'reset', id: info.feedCursor() },
      );
    } else {
      for (const entry of replay.entries) ok &&= write(entry);
    }
  }
  const stop = info.listenFeed((event, task, cursor) => {
    if (!write({ cursor, event, agent: task.metadata.agent, state: task.status.state })) close();
  });
  const close = (): void => {
    stop();
    stream.end();
  };
  ctx.req.on('close', close);
  if (!ok) close();
}

/** Where a reader resumes: `?since=` wins over the `Last-Event-ID` header (EventSource sends the latter). */
function resumeCursor(ctx: Koa.Context): string | undefined {
  const query = ctx.query.since;
  const given = typeof query === 'string' ? query : ctx.get('last-event-id') || undefined;
  return given === undefined || given === '' ? undefined : given;
}
