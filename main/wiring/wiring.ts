/**
 * The composition root: the only place ports and adapters are constructed. Everything else receives
 * what it needs. Two parts live beside it: agents.ts (each agent's backend and settings; adding a
 * backend kind = one line there) and http-server.ts (the HTTP edge and the server).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuditLog } from '../audit/audit-log.js';
import { AuditedTaskStore } from '../audit/audited-store.js';
import { newBridgeRun, stopEarlierRuns } from '../backends/process/spawn-marks.js';
import { stopWslOrphans } from '../backends/process/wsl-orphans.js';
import { recordedAgentsOf, stopRecordedAgents } from '../backends/process/recorded-agents.js';
import { installedCliDir } from '../backends/process/agent-env.js';
import { loadConfig, type LoadedConfig } from '../config/config.js';
import { ConfigReloader, type ConfigState, type ReloadResult } from './config-reload.js';

/** Where config and data live even when no bridge could be built (the tray's Open config / Open logs). */
export { defaultDataDir, resolveConfigPath } from '../config/config.js';
import { createPrivateFile, restrictDataDir } from '../config/data-dir-modes.js';
import { acquireInstanceLock, ensureDataDir, loadOrCreateToken } from '../config/data-dir.js';
import { createLogger, type BridgeLogger } from '../audit/logging.js';
import type { AgentBackend } from '../ports.js';
import { Dispatcher } from '../runtime/dispatcher.js';
import { EventFeed } from '../runtime/event-feed.js';
import { AgentRegistry } from '../runtime/registry.js';
import { TurnSlots } from '../runtime/turn-slots.js';
import type { BridgeServer } from '../server.js';
import { startHistoryPruning, type HistoryPruning } from '../stores/history-pruning.js';
import { SqliteTaskStore } from '../stores/sqlite.js';
import { responseLimitFor } from '../transport/response-size.js';
import { agentAssembly, bridgeOwnPaths, wslDistrosOf } from './agents.js';
import { createBridgeServer, type HttpBounds } from './http-server.js';

export interface BridgeOptions {
  configPath?: string;
  env?: Record<string, string | undefined>;
  /** Overrides of config values (tests, `serve --port`). */
  port?: number;
  host?: string;
  dataDir?: string;
  /** Where resources/ is (the packaged app passes its own). */
  resourcesDir?: string;
  /** `contactor serve`: stop when `contactor down` asks over HTTP (see BridgeServer). */
  onShutdownRequested?: () => void;
  /** Slow-client bounds (http-server.ts HTTP_DEFAULTS); tests shorten them. */
  http?: Partial<HttpBounds>;
}

export interface Bridge {
  readonly server: BridgeServer;
  readonly config: LoadedConfig;
  readonly token: string | undefined;
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Logs (redacted) a failure nothing else caught, so the host process can keep serving. */
  reportInternal(err: unknown): void;
  /** Re-reads config.yaml now (it is also watched): agents apply live; a bad edit keeps the last good config. */
  reloadConfig(): ReloadResult;
  /** The config in use, and the latest edit that could not be applied. */
  configStatus(): ConfigState;
  /** Told after every reload attempt. */
  onConfigChange(listener: (state: ConfigState) => void): () => void;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The repo (or unpacked app) root: wherever package.json sits above this module. */
function packageRoot(): string {
  for (let dir = HERE; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** Set by scripts/build.mjs in the bundles (the packaged CLI has no package.json above it). */
declare const __CONTACTOR_VERSION__: string | undefined;

function packageVersion(root: string): string {
  if (typeof __CONTACTOR_VERSION__ === 'string') return __CONTACTOR_VERSION__;
  return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

export async function createBridge(opts: BridgeOptions = {}): Promise<Bridge> {
  const env = opts.env ?? process.env;
  const root = packageRoot();
  const resourcesDir = opts.resourcesDir ?? path.join(root, 'resources');
  const loaded = loadConfig({
    ...(opts.configPath ? { configPath: opts.configPath } : {}),
    env,
    resourcesDir,
    nodePath: process.execPath,
  });
  const configVars = { CONTACTOR_NODE: process.execPath, CONTACTOR_RESOURCES: resourcesDir, ...env };
  const config = loaded.config;
  const dataDir = opts.dataDir ?? loaded.dataDir;
  const host = opts.host ?? config.host;
  const token = requireTokenPolicy(config.require_token, host);

  ensureDataDir(dataDir);
  restrictDataDir(dataDir);
  createPrivateFile(path.join(dataDir, 'contactor.db'));
  const releaseLock = acquireInstanceLock(dataDir);
  let openedLog: BridgeLogger | undefined;
  try {
    const secret = token ? loadOrCreateToken(dataDir) : undefined;
    // The install token and every agent's derived token: never in a log, an audit entry or a task.
    // Agents' tokens join it as their backends are built (at start and on every reload).
    const bridgeSecrets: string[] = secret ? [secret] : [];
    const log = createLogger(dataDir, () => bridgeSecrets);
    openedLog = log;
    const requestedPort = opts.port ?? config.port;
    const port = requestedPort === 0 ? await freePort(host) : requestedPort;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    const audit = new AuditLog({
      dir: path.join(dataDir, 'audit'),
      secrets: () => bridgeSecrets,
      onError: (err) => log.warn({ err }, 'could not write the audit log'),
    });
    const sqlite = new SqliteTaskStore({ file: path.join(dataDir, 'contactor.db') });
    const store = new AuditedTaskStore(sqlite, audit);
    const slots = new TurnSlots(config.max_concurrent_tasks);
    const registry = new AgentRegistry(slots);
    const backends: AgentBackend[] = [];
    // Marks every agent of this run, so the next run on this data dir can stop what a crash orphaned.
    const bridgeRun = newBridgeRun(dataDir);
    const wslDistros = wslDistrosOf(config);
    const agents = agentAssembly({
      env,
      secret,
      bridgeSecrets,
      url,
      bridgeRun,
      cliDir: installedCliDir(resourcesDir),
      home: env.HOME || env.USERPROFILE || homedir(),
      excluded: bridgeOwnPaths(dataDir, loaded.path),
      dataDir,
      log,
    });
    for (const [name, agent] of Object.entries(config.agents)) {
      const backend = agents.backendFor(name, agent);
      backends.push(backend);
      registry.add(name, backend, agents.settingsFor(name, agent, config));
    }
    agents.flushWarnings();
    // max_body_bytes needs a restart: the one read at start stays.
    const pageBytesFor = (maxArtifactBytes: number): number => maxArtifactBytes + config.max_body_bytes;
    // The dispatcher reads maxDelegationDepth per send: a reload updates it in this object.
    const dispatcherOptions = {
      store,
      registry,
      feed: new EventFeed(),
      sinks: [audit],
      maxDelegationDepth: config.max_delegation_depth,
      secrets: () => bridgeSecrets,
      // A page stops short of the response limit, leaving room for the live view and the envelope.
      maxPageBytes: pageBytesFor(config.max_artifact_bytes),
    };
    const dispatcher = new Dispatcher(dispatcherOptions);
    // Follows a reload of max_artifact_bytes, as agents' settings do: a reply the cap keeps can be served.
    let artifactCap = config.max_artifact_bytes;
    let pruning: HistoryPruning | undefined;
    let history = config.history;
    const prune = (): HistoryPruning =>
      startHistoryPruning({
        store: sqlite,
        maxAgeDays: history.max_age_days,
        maxTasks: history.max_tasks,
        onPruned: (deleted) => log.info({ deleted }, 'pruned finished tasks from the history'),
        onError: (err) => log.warn({ err }, 'could not prune the task history'),
      });
    const configListeners = new Set<(state: ConfigState) => void>();
    const reloader = new ConfigReloader({
      path: loaded.path,
      vars: configVars,
      started: config,
      registry,
      backends,
      createBackend: agents.backendFor,
      settingsOf: agents.settingsFor,
      applyLive: (next) => {
        dispatcherOptions.maxDelegationDepth = next.max_delegation_depth;
        dispatcherOptions.maxPageBytes = pageBytesFor(next.max_artifact_bytes);
        artifactCap = next.max_artifact_bytes;
        slots.resize(next.max_concurrent_tasks);
        const historyChanged = JSON.stringify(next.history) !== JSON.stringify(history);
        history = next.history;
        if (pruning && historyChanged) {
          pruning.stop();
          pruning = prune();
        }
      },
      log,
      onChange: (state) => {
        agents.flushWarnings();
        configListeners.forEach((listener) => listener(state));
      },
    });

    const server = createBridgeServer({
      dispatcher,
      store,
      backends,
      host,
      port,
      dataDir,
      version: packageVersion(root),
      ...(secret ? { token: secret } : {}),
      allowedOrigins: config.allowed_origins,
      maxBodyBytes: config.max_body_bytes,
      get maxResponseBytes() {
        return responseLimitFor(artifactCap, config.max_body_bytes);
      },
      rateLimitPerMinute: config.rate_limit_per_minute,
      ...(opts.http ? { http: opts.http } : {}),
      onRefused: (refused) => audit.refused(refused.reason, refused),
      ...(opts.onShutdownRequested ? { onShutdownRequested: opts.onShutdownRequested } : {}),
      log,
      configControl: { status: () => reloader.status(), reload: () => reloader.reload() },
      onStopped: () => {
        reloader.close();
        pruning?.stop();
        audit.close();
        log.close();
        releaseLock();
      },
    });
    return {
      server,
      config: { ...loaded, dataDir },
      token: secret,
      get url() {
        return server.url || url;
      },
      reportInternal: (err) => log.error({ err }, 'unhandled failure (the bridge keeps running)'),
      reloadConfig: () => reloader.reload(),
      configStatus: () => reloader.status(),
      onConfigChange: (listener) => {
        configListeners.add(listener);
        return () => configListeners.delete(listener);
      },
      start: async () => {
        // Before recovery fails their tasks: agents (and what they started) of a run that was killed.
        const orphans = await stopEarlierRuns(bridgeRun, 2000);
        // Then by pid and start time as the tasks recorded them: Windows, and a child that cleared its marks.
        const recorded = await stopRecordedAgents(
          recordedAgentsOf(sqlite.tasksInStates(['submitted', 'working', 'input-required'])),
          { graceMs: 2000 },
        );
        if (process.platform === 'win32' && wslDistros.length > 0) await stopWslOrphans(wslDistros, bridgeRun);
        if (orphans > 0 || recorded.stopped.length > 0 || recorded.spared.length > 0)
          log.info(
            { orphans, recordedStopped: recorded.stopped, reusedPidsSpared: recorded.spared },
            'stopped agent processes left by the previous run',
          );
        await server.start();
        reloader.watch();
        pruning ??= prune();
      },
      stop: () => server.stop(),
    };
  } catch (err) {
    openedLog?.close();
    releaseLock();
    throw err;
  }
}

function requireTokenPolicy(requireToken: boolean, host: string): boolean {
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (!requireToken && !loopback) {
    throw new Error(`refusing to listen on ${host} without a token: set require_token: true, or bind 127.0.0.1`);
  }
  return requireToken;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
