/**
 * The composition root: the only place ports and adapters are constructed. Everything else receives
 * what it needs. createBridge reads the config and puts the parts together, each built beside it:
 * bridge-files.ts (the data dir, lock, token and log), task-runtime.ts (store, audit, registry,
 * dispatcher) with live-limits.ts, agents.ts (each agent's backend and settings; adding a backend kind =
 * one line there), config-reload.ts, http-server.ts (the HTTP edge and the server) and
 * leftover-agents.ts (what a killed run left running).
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { currentAppExe, installedCliDir } from '../backends/process/agent-env.js';
import type { AgentProcessEvent } from '../backends/process/agent-log.js';
import { newBridgeRun } from '../backends/process/spawn-marks.js';
import { loadConfig, type LoadedConfig } from '../config/config.js';
import { describeConfigMove } from '../config/config-move.js';
import { agentLogFile } from '../config/data-dir.js';
import type { AgentBackend } from '../ports.js';
import type { Activity } from '../runtime/activity.js';
import type { AgentRegistry } from '../runtime/registry.js';
import type { BridgeConfig } from '../schema/config.js';
import type { BridgeServer } from '../server.js';
import { agentAssembly, bridgeOwnPaths, wslDistrosOf, type AgentAssembly } from './agents.js';
import { openBridgeFiles, type BridgeFiles } from './bridge-files.js';
import { ConfigReloader, type ConfigState, type ReloadResult } from './config-reload.js';
import { createBridgeServer, type HttpBounds } from './http-server.js';
import { stopLeftoverAgents } from './leftover-agents.js';
import { bridgeUrl, listenPort, requireTokenPolicy } from './listen-address.js';
import { packageRoot, packageVersion } from './package-info.js';
import { createTaskRuntime, type TaskRuntime } from './task-runtime.js';
import type { Timers } from '../runtime/timers.js';
import { AgentWrites } from '../platform/agent-writes.js';
import { ProtectedFiles } from '../platform/protected-files.js';

/** Where config and data live even when no bridge could be built (the tray's Open config / Open logs). */
export { defaultConfigPath, defaultDataDir, legacyConfigPath, resolveConfigPath } from '../config/config.js';

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
  /** The clock question expiry and turn timeouts run on (default: the real one); tests drive their own. */
  timers?: Timers;
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
  /** The activity view of this bridge's tasks (docs/contract.md#activity). */
  readonly activity: Activity;
  /** Where an agent's stderr log is (backends/process/agent-log.ts), whether or not it exists yet. */
  agentLogFile(agent: string): string;
  /** Told when an agent's process starts or ends; returns the unsubscribe function. */
  onAgentProcess(listener: AgentProcessListener): () => void;
}

export type AgentProcessListener = (agent: string, event: AgentProcessEvent) => void;

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
  const config = loaded.config;
  const dataDir = opts.dataDir ?? loaded.dataDir;
  const host = opts.host ?? config.host;
  const files = openBridgeFiles(dataDir, requireTokenPolicy(config.require_token, host));
  const { secret, bridgeSecrets, log } = files;
  // Said once: the next start finds the config at its new place and has nothing to move.
  if (loaded.moved) log.warn({ configMove: loaded.moved }, describeConfigMove(loaded.moved));
  try {
    const port = await listenPort(opts.port ?? config.port, host);
    const url = bridgeUrl(host, port);
    const runtime = createTaskRuntime({ config, dataDir, secrets: () => bridgeSecrets, log, timers: opts.timers });
    // Marks every agent of this run, so the next run on this data dir can stop what a crash orphaned.
    const bridgeRun = newBridgeRun(dataDir);
    // The writes the bridge served to its agents: a reload whose file an agent wrote may not widen anything.
    const agentWrites = new AgentWrites();
    const agentProcessListeners = new Set<AgentProcessListener>();
    const cliDir = installedCliDir(resourcesDir);
    const agents = agentAssembly({
      onAgentProcess: (agent, event) => {
        for (const listener of agentProcessListeners) listener(agent, event);
      },
      env,
      secret,
      bridgeSecrets,
      url,
      bridgeRun,
      cliDir,
      cliInstall: {
        hostPlatform: process.platform,
        execPath: process.execPath,
        appExe: currentAppExe(),
        cliDir,
        packageRoot: root,
        exists: existsSync,
      },
      home: env.HOME || env.USERPROFILE || homedir(),
      excluded: bridgeOwnPaths(dataDir, loaded.path),
      ownFiles: new ProtectedFiles(bridgeOwnPaths(dataDir, loaded.path)),
      agentWrites,
      dataDir,
      log,
    });
    const backends = registerAgents(agents, config, runtime.registry);
    const configVars = { CONTACTOR_NODE: process.execPath, CONTACTOR_RESOURCES: resourcesDir, ...env };
    const reload = createReloader({
      path: loaded.path,
      vars: configVars,
      config,
      runtime,
      agents,
      backends,
      files,
      agentWrites,
    });
    const server = serveHttp({ opts, runtime, backends, host, port, dataDir, root, config, reload, files });
    const start = async (): Promise<void> => {
      await stopLeftoverAgents({ bridgeRun, store: runtime.sqlite, wslDistros: wslDistrosOf(config), log });
      await server.start();
      reload.reloader.watch();
      runtime.limits.startPruning();
    };
    return bridgeHandle({
      server,
      config: { ...loaded, dataDir },
      token: secret,
      url,
      reload,
      files,
      start,
      activity: runtime.activity,
      agentProcessListeners,
    });
  } catch (err) {
    files.close();
    throw err;
  }
}

/** Every configured agent's backend, registered under its name; the server closes them at shutdown. */
function registerAgents(agents: AgentAssembly, config: BridgeConfig, registry: AgentRegistry): AgentBackend[] {
  const backends: AgentBackend[] = [];
  for (const [name, agent] of Object.entries(config.agents)) {
    const backend = agents.backendFor(name, agent);
    backends.push(backend);
    registry.add(name, backend, agents.settingsFor(name, agent, config));
  }
  agents.flushWarnings();
  return backends;
}

interface Reload {
  reloader: ConfigReloader;
  /** Told after every reload attempt (Bridge.onConfigChange). */
  listeners: Set<(state: ConfigState) => void>;
}

/** Applies config.yaml edits live: agents through the registry, the rest through the live limits. */
function createReloader(o: {
  path: string;
  vars: Record<string, string | undefined>;
  config: BridgeConfig;
  runtime: TaskRuntime;
  agents: AgentAssembly;
  backends: AgentBackend[];
  files: BridgeFiles;
  agentWrites: AgentWrites;
}): Reload {
  const listeners = new Set<(state: ConfigState) => void>();
  const reloader = new ConfigReloader({
    path: o.path,
    vars: o.vars,
    started: o.config,
    registry: o.runtime.registry,
    backends: o.backends,
    createBackend: o.agents.backendFor,
    settingsOf: o.agents.settingsFor,
    agentWrites: o.agentWrites,
    applyLive: (next) => o.runtime.limits.apply(next),
    log: o.files.log,
    onChange: (state) => {
      o.agents.flushWarnings();
      listeners.forEach((listener) => listener(state));
    },
  });
  return { reloader, listeners };
}

/** The HTTP edge and its server; stopping it closes what createBridge opened, the lock last. */
function serveHttp(o: {
  opts: BridgeOptions;
  runtime: TaskRuntime;
  backends: AgentBackend[];
  host: string;
  port: number;
  dataDir: string;
  root: string;
  config: BridgeConfig;
  reload: Reload;
  files: BridgeFiles;
}): BridgeServer {
  const { opts, runtime, config, reload, files } = o;
  return createBridgeServer({
    dispatcher: runtime.dispatcher,
    activity: runtime.activity,
    store: runtime.store,
    backends: o.backends,
    host: o.host,
    port: o.port,
    dataDir: o.dataDir,
    version: packageVersion(o.root),
    ...(files.secret ? { token: files.secret } : {}),
    onExternalTokenProven: files.rememberExternalToken,
    allowedOrigins: config.allowed_origins,
    maxBodyBytes: config.max_body_bytes,
    get maxResponseBytes() {
      return runtime.limits.maxResponseBytes;
    },
    rateLimitPerMinute: config.rate_limit_per_minute,
    get mcpWaitMs() {
      return runtime.limits.mcpWaitMs;
    },
    ...(opts.http ? { http: opts.http } : {}),
    onRefused: (refused) => runtime.audit.refused(refused.reason, refused),
    ...(opts.onShutdownRequested ? { onShutdownRequested: opts.onShutdownRequested } : {}),
    log: files.log,
    configControl: { status: () => reload.reloader.status(), reload: () => reload.reloader.reload() },
    onStopped: () => {
      reload.reloader.close();
      runtime.limits.stop();
      runtime.audit.close();
      files.close();
    },
  });
}

function bridgeHandle(o: {
  server: BridgeServer;
  config: LoadedConfig;
  token: string | undefined;
  url: string;
  reload: Reload;
  files: BridgeFiles;
  start: () => Promise<void>;
  activity: Activity;
  agentProcessListeners: Set<AgentProcessListener>;
}): Bridge {
  const { server, reload } = o;
  return {
    server,
    config: o.config,
    token: o.token,
    get url() {
      return server.url || o.url;
    },
    reportInternal: (err) => o.files.log.error({ err }, 'unhandled failure (the bridge keeps running)'),
    reloadConfig: () => reload.reloader.reload(),
    configStatus: () => reload.reloader.status(),
    onConfigChange: (listener) => {
      reload.listeners.add(listener);
      return () => reload.listeners.delete(listener);
    },
    start: o.start,
    stop: () => server.stop(),
    activity: o.activity,
    agentLogFile: (agent) => agentLogFile(o.config.dataDir, agent),
    onAgentProcess: (listener) => {
      o.agentProcessListeners.add(listener);
      return () => o.agentProcessListeners.delete(listener);
    },
  };
}
