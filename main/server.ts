/**
 * The running bridge: restart recovery, the HTTP listener, cards and the discovery file, and an orderly
 * stop (listener closed, questions cancelled, agents stopped, store closed, files removed).
 */
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { removeDiscovery, writeDiscovery } from './data-dir.js';
import type { AgentBackend, TaskStore } from './ports.js';
import type { Dispatcher } from './runtime/dispatcher.js';
import { buildAgentCard, buildBridgeCard, type AgentProfile, type BearerSecurity } from './transport/cards.js';
import { createHttpHandler, type BridgeInfo, type RefusedRequest } from './transport/http.js';
import { JsonRpcEndpoint, type RpcLog } from './transport/jsonrpc.js';
import { CallerTokens } from './transport/caller-tokens.js';
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './transport/connection-guard.js';
import type { ConfigControl } from './transport/rpc-types.js';
import { CallerRateLimit } from './transport/rate-limit.js';
import { allowedHostsFor } from './transport/request-gate.js';

export interface BridgeServerOptions {
  dispatcher: Dispatcher;
  store: TaskStore;
  backends: AgentBackend[];
  host: string;
  port: number;
  dataDir: string;
  version: string;
  token?: string;
  allowedOrigins: string[];
  maxBodyBytes: number;
  /**
   * The largest JSON-RPC response (response-size.ts); unbounded when absent. Read for every response: it
   * follows max_artifact_bytes when a config reload changes that (wiring).
   */
  maxResponseBytes?: number;
  /** JSON-RPC requests per minute per caller; no limit when absent. */
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

export class BridgeServer {
  private http: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private startedAt = 0;
  private boundUrl = '';
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: BridgeServerOptions) {}

  get url(): string {
    return this.boundUrl;
  }

  get dispatcher(): Dispatcher {
    return this.opts.dispatcher;
  }

  async start(): Promise<void> {
    const recovered = this.opts.dispatcher.recover();
    if (recovered.failed || recovered.waiting)
      this.opts.log.info(recovered, 'recovered tasks left by the previous run');
    this.startedAt = Date.now();
    const port = await this.listen();
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    this.boundUrl = `http://${host}:${port}`;
    writeDiscovery(this.opts.dataDir, {
      url: this.boundUrl,
      port,
      pid: process.pid,
      version: this.opts.version,
      startedAt: new Date(this.startedAt).toISOString(),
      dataDir: this.opts.dataDir,
      ...(this.opts.token ? { token: this.opts.token } : {}),
    });
    this.opts.log.info({ url: this.boundUrl, agents: this.opts.dispatcher.registry.names() }, 'bridge listening');
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.http) return resolve();
      this.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    this.opts.dispatcher.shutdown();
    await Promise.allSettled(this.opts.backends.map((b) => b.close()));
    this.opts.store.close();
    removeDiscovery(this.opts.dataDir, process.pid);
    this.opts.onStopped?.();
  }

  private listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      // The request gate needs the bound port, so the app is created once it is known.
      let port = this.opts.port;
      const server = this.createServer(() => port);
      server.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(
                `port ${this.opts.port} on ${this.opts.host} is already in use; is another bridge running (\`contactor status\`)? Or set another port in config.yaml`,
              )
            : err,
        );
      });
      server.listen(this.opts.port, this.opts.host, () => {
        port = (server.address() as AddressInfo).port;
        this.http = server;
        resolve(port);
      });
    });
  }

  private createServer(port: () => number): Server {
    const info = this.bridgeInfo();
    const opts = this.opts;
    const endpoint = new JsonRpcEndpoint(
      {
        dispatcher: this.opts.dispatcher,
        cards: { agentCard: (n) => info.agentCard(n), listAgents: () => this.agentList() },
        ...(this.opts.configControl ? { config: this.opts.configControl } : {}),
      },
      this.opts.log,
      this.opts.maxResponseBytes !== undefined
        ? {
            get maxResponseBytes() {
              return opts.maxResponseBytes;
            },
          }
        : {},
    );
    let handler: ReturnType<typeof createHttpHandler> | undefined;
    const handlerFor = (): ReturnType<typeof createHttpHandler> =>
      (handler ??= createHttpHandler({
        endpoint,
        info,
        policy: {
          allowedHosts: allowedHostsFor(this.opts.host, port()),
          allowedOrigins: new Set(this.opts.allowedOrigins),
          maxUrlLength: 2048,
        },
        ...(this.opts.token
          ? { tokens: new CallerTokens(this.opts.token, () => this.opts.dispatcher.registry.callerNames()) }
          : {}),
        maxBodyBytes: this.opts.maxBodyBytes,
        ...(this.opts.rateLimitPerMinute
          ? { rateLimit: new CallerRateLimit({ perMinute: this.opts.rateLimitPerMinute }) }
          : {}),
        ...(this.opts.onRefused ? { onRefused: this.opts.onRefused } : {}),
        ...(this.opts.onShutdownRequested ? { onShutdownRequested: this.opts.onShutdownRequested } : {}),
        onAuthenticated: (socket) => guard.prove(socket),
      }));
    const bounds = { ...HTTP_DEFAULTS, ...this.opts.http };
    const guard = new ConnectionGuard(bounds.limits, (reason, remote) =>
      this.opts.onRefused?.({ reason, status: 503, method: '', path: '', remote }),
    );
    // Made once, on the first request (Koa's callback() composes the middleware each time it is called).
    const server = createNodeServer(
      {
        // Node wants headersTimeout <= requestTimeout (a shortened request deadline shortens both).
        headersTimeout: Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs),
        requestTimeout: bounds.requestTimeoutMs,
        connectionsCheckingInterval: bounds.checkEveryMs,
      },
      (req, res) => handlerFor()(req, res),
    );
    server.maxHeadersCount = 100;
    server.on('connection', (socket: Socket) => {
      if (!guard.admit(socket)) return;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private bridgeInfo(): BridgeInfo {
    const security: BearerSecurity | undefined = this.opts.token
      ? { bearer: { description: 'per-install token; the contactor CLI finds it in the discovery file' } }
      : undefined;
    const cardOptions = (url: string) => ({
      url,
      version: this.opts.version,
      ...(security ? { securitySchemes: security } : {}),
    });
    return {
      health: () => ({
        status: 'ok',
        name: 'contactor',
        version: this.opts.version,
        uptimeS: Math.round((Date.now() - this.startedAt) / 1000),
        agents: this.opts.dispatcher.registry.names().length,
        pid: process.pid,
      }),
      bridgeCard: () => buildBridgeCard({ agents: this.profiles(), ...cardOptions(`${this.boundUrl}/`) }),
      agentCard: (name) => {
        const profile = this.profiles().find((p) => p.name === name);
        return profile && buildAgentCard({ ...profile, ...cardOptions(`${this.boundUrl}/agents/${name}`) });
      },
      hasAgent: (name) => this.opts.dispatcher.registry.has(name),
      listenFeed: (listener) => this.opts.dispatcher.feed.listen(listener),
    };
  }

  private profiles(): AgentProfile[] {
    return this.opts.dispatcher.registry.all().map((e) => ({
      name: e.name,
      ...(e.settings.description ? { description: e.settings.description } : {}),
      traits: e.backend.traits,
      skills: e.settings.skills,
      tags: e.settings.tags,
    }));
  }

  private agentList(): unknown[] {
    const pending = this.opts.dispatcher.pending();
    return this.opts.dispatcher.registry.all().map((e) => ({
      name: e.name,
      description: e.settings.description ?? '',
      backend: e.backend.traits.backend,
      traits: e.backend.traits,
      queue: {
        waiting: e.shard.waiting,
        running: e.shard.running,
        needsAnswer: pending.filter((t) => t.metadata.agent === e.name).length,
      },
      url: `${this.boundUrl}/agents/${e.name}`,
      cardUrl: `${this.boundUrl}/agents/${e.name}/.well-known/agent-card.json`,
    }));
  }
}
