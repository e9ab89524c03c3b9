/**
 * The composition root: the only place ports and adapters are constructed. Everything else receives
 * what it needs. Adding a backend kind = one line in `createBackend`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuditLog } from './audit-log.js';
import { AuditedTaskStore } from './audited-store.js';
import { A2aRemoteBackend } from './backends/a2a-remote.js';
import { AcpBackend } from './backends/acp.js';
import { HttpApiBackend } from './backends/http-api.js';
import { CliBackend } from './backends/subprocess-cli.js';
import { inheritedAgentEnv, loadConfig, type LoadedConfig } from './config.js';
import { ConfigReloader, type ConfigState, type ReloadResult } from './config-reload.js';

/** Where config and data live even when no bridge could be built (the tray's Open config / Open logs). */
export { defaultDataDir, resolveConfigPath } from './config.js';
import { acquireInstanceLock, ensureDataDir, loadOrCreateToken } from './data-dir.js';
import { decisionContractDefault } from './known-agents.js';
import { createLogger } from './logging.js';
import type { AgentBackend } from './ports.js';
import { Dispatcher } from './runtime/dispatcher.js';
import { EventFeed } from './runtime/event-feed.js';
import { AgentRegistry, type AgentSettings } from './runtime/registry.js';
import { TurnSlots } from './runtime/turn-slots.js';
import type { AgentConfig, BridgeConfig } from './schema/config.js';
import { BridgeServer } from './server.js';
import { startHistoryPruning, type HistoryPruning } from './stores/history-pruning.js';
import { SqliteTaskStore } from './stores/sqlite.js';

export interface BridgeOptions {
  configPath?: string;
  env?: Record<string, string | undefined>;
  /** Overrides of config values (tests, `serve --port`). */
  port?: number;
  host?: string;
  dataDir?: string;
  /** Where resources/ is (the packaged app passes its own). */
  resourcesDir?: string;
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

function packageVersion(root: string): string {
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
  const releaseLock = acquireInstanceLock(dataDir);
  try {
    const secret = token ? loadOrCreateToken(dataDir) : undefined;
    const log = createLogger(dataDir, () => (secret ? [secret] : []));
    const requestedPort = opts.port ?? config.port;
    const port = requestedPort === 0 ? await freePort(host) : requestedPort;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    const audit = new AuditLog({
      dir: path.join(dataDir, 'audit'),
      secrets: () => (secret ? [secret] : []),
      onError: (err) => log.warn({ err }, 'could not write the audit log'),
    });
    const sqlite = new SqliteTaskStore({ file: path.join(dataDir, 'contactor.db') });
    const store = new AuditedTaskStore(sqlite, audit);
    const slots = new TurnSlots(config.max_concurrent_tasks);
    const registry = new AgentRegistry(slots);
    const backends: AgentBackend[] = [];
    const backendFor = (name: string, agent: AgentConfig): AgentBackend => {
      const baseEnv = {
        ...inheritedAgentEnv(env),
        CONTACTOR_URL: url,
        CONTACTOR_AGENT: name,
        ...(secret ? { CONTACTOR_TOKEN: secret } : {}),
      };
      return createBackend(name, agent, baseEnv, decisionContractOf(agent));
    };
    for (const [name, agent] of Object.entries(config.agents)) {
      const backend = backendFor(name, agent);
      backends.push(backend);
      registry.add(name, backend, settingsOf(agent, config));
    }
    // The dispatcher reads maxDelegationDepth per send: a reload updates it in this object.
    const dispatcherOptions = {
      store,
      registry,
      feed: new EventFeed(),
      sinks: [audit],
      maxDelegationDepth: config.max_delegation_depth,
    };
    const dispatcher = new Dispatcher(dispatcherOptions);
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
      createBackend: backendFor,
      settingsOf,
      applyLive: (next) => {
        dispatcherOptions.maxDelegationDepth = next.max_delegation_depth;
        slots.resize(next.max_concurrent_tasks);
        const historyChanged = JSON.stringify(next.history) !== JSON.stringify(history);
        history = next.history;
        if (pruning && historyChanged) {
          pruning.stop();
          pruning = prune();
        }
      },
      log,
      onChange: (state) => configListeners.forEach((listener) => listener(state)),
    });

    const server = new BridgeServer({
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
      rateLimitPerMinute: config.rate_limit_per_minute,
      onRefused: (refused) => audit.refused(refused.reason, refused),
      log,
      configControl: { status: () => reloader.status(), reload: () => reloader.reload() },
      onStopped: () => {
        reloader.close();
        pruning?.stop();
        audit.close();
        log.flush();
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
        await server.start();
        reloader.watch();
        pruning ??= prune();
      },
      stop: () => server.stop(),
    };
  } catch (err) {
    releaseLock();
    throw err;
  }
}

/** http_api and a2a read the secrets their `api_key_env` / `token_env` name from the live process env. */
function createBackend(
  name: string,
  agent: AgentConfig,
  baseEnv: Record<string, string>,
  decisionContract: boolean,
): AgentBackend {
  switch (agent.kind) {
    case 'subprocess_cli':
      return new CliBackend({ name, config: agent, baseEnv, decisionContract });
    case 'acp':
      return new AcpBackend({ name, config: agent, baseEnv });
    case 'http_api':
      return new HttpApiBackend({ name, config: agent, decisionContract });
    case 'a2a':
      return new A2aRemoteBackend({ name, config: agent });
    default: {
      const never: never = agent;
      return never;
    }
  }
}

function settingsOf(agent: AgentConfig, config: BridgeConfig): AgentSettings {
  return {
    maxArtifactBytes: config.max_artifact_bytes,
    ...(agent.description ? { description: agent.description } : {}),
    timeoutMs: agent.timeout_s * 1000,
    approvalTimeoutMs: agent.approval_timeout_s * 1000,
    approvalRules: agent.approval_rules,
    appendDecisionContract: decisionContractOf(agent),
    maxQueue: agent.max_queue,
    ...(agent.cwd ? { workspace: agent.cwd } : {}),
    skills: agent.skills,
    tags: agent.tags,
  };
}

/** The agent's `append_decision_contract`, else the default for its kind and program. */
function decisionContractOf(agent: AgentConfig): boolean {
  return agent.append_decision_contract ?? decisionContractDefault(agent);
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
