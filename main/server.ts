/**
 * The running bridge: restart recovery, the HTTP listener (built by wiring) and the discovery file, and
 * an orderly stop (listener closed, questions cancelled, agents stopped, store closed, files removed).
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { removeDiscovery, writeDiscovery } from './config/data-dir.js';
import { describePortHolder } from './platform/port-holder.js';
import type { AgentBackend, TaskStore } from './ports.js';
import type { Dispatcher } from './runtime/dispatcher.js';

export interface BridgeServerOptions {
  dispatcher: Dispatcher;
  store: TaskStore;
  backends: AgentBackend[];
  /** The node:http server with its request handler and connection guard, not yet listening (wiring/http-server.ts). */
  http: Server;
  host: string;
  port: number;
  dataDir: string;
  version: string;
  token?: string;
  log: { info(details: Record<string, unknown>, message: string): void };
  /** Runs last in `stop` (release the instance lock). */
  onStopped?: () => void;
}

export class BridgeServer {
  private listening = false;
  private readonly sockets = new Set<Socket>();
  private startedAt = 0;
  private boundPort = 0;
  private boundUrl = '';
  private stopping: Promise<void> | undefined;
  private ended = false;

  constructor(private readonly opts: BridgeServerOptions) {}

  get url(): string {
    return this.boundUrl;
  }

  /** The port listened on (the configured one, or the one the system chose for port 0); 0 before `start`. */
  get port(): number {
    return this.boundPort;
  }

  get uptimeS(): number {
    return Math.round((Date.now() - this.startedAt) / 1000);
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

  /**
   * The session ends (Windows sign-out, shutdown, restart): the OS ends the process right after the window
   * handlers return (electron/electron shell/browser/native_window_views_win.cc, WM_ENDSESSION), so only
   * synchronous work counts. Running tasks are recorded (the next start settles them), every agent is told to
   * stop (the kill goes out now), the store is closed and the discovery file removed. A later stop() is a no-op.
   */
  endSession(): void {
    if (this.ended) return;
    this.ended = true;
    this.stopping ??= Promise.resolve();
    if (this.listening) this.opts.http.close();
    for (const socket of this.sockets) socket.destroy();
    this.opts.dispatcher.shutdown();
    for (const backend of this.opts.backends) void backend.close().catch(() => undefined);
    this.opts.store.close();
    removeDiscovery(this.opts.dataDir, process.pid);
    this.opts.onStopped?.();
  }

  private async shutdown(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.listening) return resolve();
      this.opts.http.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    this.opts.dispatcher.shutdown();
    await Promise.allSettled(this.opts.backends.map((b) => b.close()));
    this.opts.store.close();
    removeDiscovery(this.opts.dataDir, process.pid);
    this.opts.onStopped?.();
  }

  private listen(): Promise<number> {
    const server = this.opts.http;
    // Every connection, so a stop ends them all (the guard of wiring/http-server.ts may be closing some already).
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return new Promise((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(
                `port ${this.opts.port} on ${this.opts.host} is already in use (${describePortHolder(this.opts.port)}); is another bridge running (\`contactor status\`)? Or set another port in config.yaml`,
              )
            : err,
        );
      });
      server.listen(this.opts.port, this.opts.host, () => {
        this.boundPort = (server.address() as AddressInfo).port;
        this.listening = true;
        resolve(this.boundPort);
      });
    });
  }
}
