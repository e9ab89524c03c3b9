/**
 * Part of the composition root (wiring.ts): the HTTP edge and the server around it. The JSON-RPC
 * endpoint, caller tokens, rate limit, connection guard, request handler and the node:http server with its
 * slow-client bounds are constructed here and nowhere else; server.ts only starts and stops what it gets.
 */
import { createServer, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { AgentBackend, TaskStore } from '../ports.js';
import type { Activity } from '../runtime/activity.js';
import type { Dispatcher } from '../runtime/dispatcher.js';
import { createMcpHttpDoor } from '../front-doors/mcp/http-door.js';
import { DEFAULT_TOOL_SETTINGS } from '../front-doors/mcp/tools.js';
import { BridgeServer } from '../server.js';
import { bridgeInfo } from '../transport/bridge-info.js';
import { CallerTokens } from '../transport/caller-tokens.js';
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../transport/connection-guard.js';
import { createHttpHandler } from '../transport/http.js';
import type { RefusedRequest } from '../transport/http-options.js';
import { JsonRpcEndpoint, type RpcLog } from '../transport/jsonrpc.js';
import { CallerRateLimit } from '../transport/rate-limit.js';
import { allowedHostsFor } from '../transport/request-gate.js';
import type { ConfigControl } from '../transport/rpc-types.js';

export interface HttpBridgeOptions {
  dispatcher: Dispatcher;
  /** `activity/snapshot` and `activity/task`. */
  activity?: Activity;
  store: TaskStore;
  backends: AgentBackend[];
  host: string;
  port: number;
  dataDir: string;
  version: string;
  token?: string;
  /** Told each time an external agent's token proves its name (CallerTokens): it joins the bridge's secrets. */
  onExternalTokenProven?: (token: string) => void;
  allowedOrigins: string[];
  maxBodyBytes: number;
  /**
   * The largest JSON-RPC response (response-size.ts); unbounded when absent. Read for every response: it
   * follows max_artifact_bytes when a config reload changes that (wiring).
   */
  maxResponseBytes?: number;
  /** How long `/mcp`'s send_task follows a task (mcp_wait_seconds); read per call, so a reload applies. */
  mcpWaitMs?: number;
  /** Requests per minute per caller (JSON-RPC, guarded routes, `/mcp`'s tool calls); no limit when absent. */
  rateLimitPerMinute?: number;
  /** Every request refused before dispatch (the audit log). */
  onRefused?: (details: RefusedRequest) => void;
  /** Enables `POST /shutdown` (see HttpOptions): the host's way to stop cleanly on request. */
  onShutdownRequested?: () => void;
  log: RpcLog & { info(details: Record<string, unknown>, message: string): void };
  /** `config/status` and `config/reload` (wiring's config reloader). */
  configControl?: ConfigControl;
  /** Runs last in `stop` (release the instance lock). */
  onStopped?: () => void;
  /** Slow-client bounds; defaults in HTTP_DEFAULTS (tests shorten them). */
  http?: Partial<HttpBounds>;
}

export interface HttpBounds {
  /** The request line and headers must have arrived by then. */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived by then (a response may take as long as it needs). */
  requestTimeoutMs: number;
  /** How often Node checks the two above. */
  checkEveryMs: number;
  limits: ConnectionLimits;
}

export const HTTP_DEFAULTS: HttpBounds = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  checkEveryMs: 1_000,
  limits: DEFAULT_CONNECTION_LIMITS,
};

export function createBridgeServer(opts: HttpBridgeOptions): BridgeServer {
  const { dispatcher, log } = opts;
  const bounds = { ...HTTP_DEFAULTS, ...opts.http };
  const guard = new ConnectionGuard(bounds.limits, (reason, remote) =>
    opts.onRefused?.({ reason, status: 503, method: '', path: '', remote }),
  );
  const http = createServer({
    // Node wants headersTimeout <= requestTimeout (a shortened request deadline shortens both).
    headersTimeout: Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs),
    requestTimeout: bounds.requestTimeoutMs,
    connectionsCheckingInterval: bounds.checkEveryMs,
  });
  http.maxHeadersCount = 100;
  // Before the server's own listener (it counts the connection for stopping): a refused one is closed here.
  http.on('connection', (socket: Socket) => guard.admit(socket));
  const server = new BridgeServer({
    dispatcher,
    store: opts.store,
    backends: opts.backends,
    http,
    host: opts.host,
    port: opts.port,
    dataDir: opts.dataDir,
    version: opts.version,
    ...(opts.token ? { token: opts.token } : {}),
    log,
    onStopped: () => {
      void mcpDoor.close();
      opts.onStopped?.();
    },
  });

  const info = bridgeInfo({
    dispatcher,
    version: opts.version,
    bearer: opts.token !== undefined,
    url: () => server.url,
    uptimeS: () => server.uptimeS,
  });
  const endpoint = new JsonRpcEndpoint(
    {
      dispatcher,
      cards: { agentCard: (name) => info.agentCard(name), listAgents: () => info.agentList() },
      ...(opts.activity ? { activity: opts.activity } : {}),
      ...(opts.configControl ? { config: opts.configControl } : {}),
    },
    log,
    opts.maxResponseBytes !== undefined
      ? {
          get maxResponseBytes() {
            return opts.maxResponseBytes;
          },
        }
      : {},
  );
  // One limiter for every way in: JSON-RPC POSTs, guarded routes, and `/mcp`'s in-process calls.
  const rateLimit = opts.rateLimitPerMinute ? new CallerRateLimit({ perMinute: opts.rateLimitPerMinute }) : undefined;
  // `/mcp`: its tools call the endpoint above in-process, as the identity the edge proved, charged to its rate
  // limit; its sessions close with the server (onStopped).
  const mcpDoor = createMcpHttpDoor({
    ...(rateLimit ? { rateLimit } : {}),
    endpoint,
    version: opts.version,
    settings: {
      ...DEFAULT_TOOL_SETTINGS,
      get waitMs() {
        return opts.mcpWaitMs ?? DEFAULT_TOOL_SETTINGS.waitMs;
      },
    },
    // The names an agent's token proves (CallerTokens), an agent a reload is removing included.
    agentNames: () => dispatcher.registry.callerNames(),
    maxBodyBytes: opts.maxBodyBytes,
  });
  const tokens = opts.token
    ? new CallerTokens(opts.token, () => dispatcher.registry.callerNames(), opts.onExternalTokenProven)
    : undefined;
  // The request gate needs the bound port (port 0 is chosen at listen): the handler is made on the first request.
  let handler: RequestListener | undefined;
  const handlerFor = (): RequestListener =>
    (handler ??= createHttpHandler({
      endpoint,
      info,
      policy: {
        allowedHosts: allowedHostsFor(opts.host, server.port),
        allowedOrigins: new Set(opts.allowedOrigins),
        maxUrlLength: 2048,
      },
      ...(tokens ? { tokens } : {}),
      maxBodyBytes: opts.maxBodyBytes,
      ...(rateLimit ? { rateLimit } : {}),
      ...(opts.onRefused ? { onRefused: opts.onRefused } : {}),
      ...(opts.onShutdownRequested ? { onShutdownRequested: opts.onShutdownRequested } : {}),
      onAuthenticated: (socket, who) => guard.prove(socket, who),
      mcp: (req, res, who, bucket) => mcpDoor.handle(req, res, who, bucket),
    }));
  http.on('request', (req, res) => handlerFor()(req, res));
  return server;
}
