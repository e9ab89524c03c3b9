/**
 * Part of the composition root (wiring.ts): the agents. Builds each configured agent's backend (its
 * environment, derived token, default working directory) and its runtime settings, the same way at start
 * and on every config reload. Adding a backend kind = one line in `createBackend`.
 */
import path from 'node:path';
import { A2aRemoteBackend } from '../backends/a2a/backend.js';
import { AcpBackend } from '../backends/acp/backend.js';
import { withCliDirFirst } from '../backends/process/agent-env.js';
import type { CliInstall } from '../backends/process/contactor-cli.js';
import { AgentLog, type AgentProcessEvent } from '../backends/process/agent-log.js';
import { agentLogFile } from '../config/data-dir.js';
import { redact } from '../domain/redaction.js';
import { HttpApiBackend } from '../backends/http-api/backend.js';
import { BRIDGE_RUN_MARK } from '../backends/process/spawn-marks.js';
import { CliBackend } from '../backends/subprocess-cli/backend.js';
import { asSeenByDistro } from '../backends/process/wsl-paths.js';
import { filterAgentEnv } from '../config/agent-env-filter.js';
import { inheritedAgentEnv } from '../config/config.js';
import { cwdConfinement } from '../config/cwd-confinement.js';
import { decisionContractDefault, npmPackageOf, volatileInputFieldsOf } from '../config/known-agents.js';
import type { AgentBackend } from '../ports.js';
import type { AgentSettings } from '../runtime/registry.js';
import type { AgentConfig, BridgeConfig } from '../schema/config.js';
import { deriveAgentToken } from '../transport/caller-tokens.js';
import type { ProtectedFiles } from '../platform/protected-files.js';
import type { AgentWrites } from '../platform/agent-writes.js';
import { approvalRulePaths } from '../platform/path-containment.js';

type WarnLog = { warn(details: Record<string, unknown>, message: string): void };

export interface AgentAssemblyOptions {
  /** The bridge's own environment, filtered for each agent. */
  env: Record<string, string | undefined>;
  /** The install token; each agent gets its own token derived from it. */
  secret: string | undefined;
  /** Every secret never to log: each agent's derived token joins it as its backend is built. */
  bridgeSecrets: string[];
  /** The bridge's URL, given to agents (CONTACTOR_URL) so they can call it back. */
  url: string;
  /** This run's mark on every agent process (spawn-marks.ts). */
  bridgeRun: string;
  /** The packaged app's CLI folder, first on every agent's PATH; undefined elsewhere. */
  cliDir: string | undefined;
  /** How this install runs its CLI: the `contactor mcp` each ACP agent is offered (backends/acp/mcp-offer.ts). */
  cliInstall?: CliInstall;
  /** The user's home: the working directory of an agent that names none. */
  home: string;
  /** What no agent may work in or reach (bridgeOwnPaths). */
  excluded: string[];
  /** The same, checked by real path and file identity when an ACP agent reads or writes a file. */
  ownFiles: ProtectedFiles;
  /** Where ACP agents' file writes are noted (the config reload asks who wrote the config last). */
  agentWrites: AgentWrites;
  /** Where each agent's stderr log is kept (backends/process/agent-log.ts). */
  dataDir: string;
  log: WarnLog;
  /** Told when an agent's process starts or ends (Bridge.onAgentProcess). */
  onAgentProcess?: (agent: string, event: AgentProcessEvent) => void;
}

/** Plain functions (no `this`), so each can be handed on as it is (the config reloader takes two). */
export interface AgentAssembly {
  backendFor: (name: string, agent: AgentConfig) => AgentBackend;
  settingsFor: (name: string, agent: AgentConfig, bridgeConfig: BridgeConfig) => AgentSettings;
  /** Logs, once per load (start or reload), what the agents built since the last call do not get. */
  flushWarnings: () => void;
}

/** Used at start and by every reload: an added or changed agent is built exactly like a first one. */
export function agentAssembly(opts: AgentAssemblyOptions): AgentAssembly {
  const { secret, bridgeSecrets, home, excluded } = opts;
  const envWarnings = new AgentEnvWarnings(opts.log);
  return {
    backendFor: (name, agent) => {
      const filtered = filterAgentEnv(inheritedAgentEnv(opts.env), {
        passProxyCredentials: agent.pass_proxy_credentials,
      });
      envWarnings.note(name, agent, filtered.strippedProxyCredentials.length > 0);
      const agentToken = secret ? deriveAgentToken(secret, name) : undefined;
      if (agentToken && !bridgeSecrets.includes(agentToken)) bridgeSecrets.push(agentToken);
      // The packaged Windows app's CLI folder goes first on every agent's PATH (backends/process/agent-env.ts).
      const baseEnv = withCliDirFirst(
        {
          ...filtered.env,
          CONTACTOR_URL: opts.url,
          CONTACTOR_AGENT: name,
          [BRIDGE_RUN_MARK]: opts.bridgeRun,
          // Its own token, from which the bridge knows the caller (caller-tokens.ts), never the install token.
          ...(agentToken ? { CONTACTOR_TOKEN: agentToken } : {}),
        },
        opts.cliDir,
      );
      // Without a cwd an agent works in the user's home (its root), not wherever the bridge was started.
      // Its stderr is its own words: the bridge's secrets and credential shapes are removed from each line.
      const onProcess = opts.onAgentProcess;
      const stderrLog = new AgentLog({
        file: agentLogFile(opts.dataDir, name),
        dataDir: opts.dataDir,
        redact: (line) => redact(line, bridgeSecrets),
        ...(onProcess ? { onProcess: (event: AgentProcessEvent) => onProcess(name, event) } : {}),
      });
      return createBackend(name, agentWithDefaultCwd(agent, home), baseEnv, {
        ownFiles: opts.ownFiles,
        agentWrites: opts.agentWrites,
        decisionContract: decisionContractOf(agent),
        stderrLog,
        cliInstall: opts.cliInstall,
      });
    },
    settingsFor: (name, agent, bridgeConfig) => {
      const confinement = cwdConfinement({
        agent: name,
        cwd: agent.cwd,
        allowedCwds: agent.allowed_cwds,
        home,
        excluded,
        ...(agent.kind === 'acp' && agent.platform === 'wsl'
          ? { agentPath: (p: string) => asSeenByDistro(p, agent.distro) }
          : {}),
      });
      return {
        ...settingsOf(agentWithDefaultCwd(agent, home), bridgeConfig),
        confineCwd: (cwd) => confinement.confine(cwd),
      };
    },
    flushWarnings: () => envWarnings.flush(),
  };
}

/** http_api and a2a read the secrets their `api_key_env` / `token_env` name from the live process env. */
function createBackend(
  name: string,
  agent: AgentConfig,
  baseEnv: Record<string, string>,
  options: {
    ownFiles: ProtectedFiles;
    agentWrites: AgentWrites;
    decisionContract: boolean;
    stderrLog: AgentLog;
    cliInstall: CliInstall | undefined;
  },
): AgentBackend {
  switch (agent.kind) {
    case 'subprocess_cli':
      return new CliBackend({ name, config: agent, baseEnv, decisionContract: options.decisionContract });
    case 'acp':
      return new AcpBackend({
        name,
        config: agent,
        baseEnv,
        ownFiles: options.ownFiles,
        agentWrites: options.agentWrites,
        stderrLog: options.stderrLog,
        cliInstall: options.cliInstall,
        volatileInputFields: volatileInputFieldsOf(agent),
        npmPackage: npmPackageOf(agent.command[0] ?? ''),
      });
    case 'http_api':
      return new HttpApiBackend({ name, config: agent, decisionContract: options.decisionContract });
    case 'a2a':
      return new A2aRemoteBackend({ name, config: agent });
    default: {
      const never: never = agent;
      return never;
    }
  }
}

/** The distros of WSL agents (undefined: the default one): where a killed bridge's agents are looked for at the next start. */
export function wslDistrosOf(config: BridgeConfig): (string | undefined)[] {
  return Object.values(config.agents).flatMap((a) => (a.kind === 'acp' && a.platform === 'wsl' ? [a.distro] : []));
}

/**
 * What no agent may use as its working directory or reach through ACP fs/*: the data dir (token,
 * database, logs), the config file (followed to its target when it is a symlink) and its folder when that
 * is contactor's own (the default place).
 */
export function bridgeOwnPaths(dataDir: string, configPath: string): string[] {
  const configDir = path.dirname(configPath);
  return [dataDir, configPath, ...(path.basename(configDir) === 'contactor' ? [configDir] : [])];
}

/** Said once per load (start or reload): what agents do not get, and what every user on the machine can see. */
class AgentEnvWarnings {
  private strippedFor: string[] = [];
  private promptInArgs: string[] = [];

  constructor(private readonly log: WarnLog) {}

  note(name: string, agent: AgentConfig, strippedProxyCredentials: boolean): void {
    if (strippedProxyCredentials) this.strippedFor.push(name);
    if (agent.kind === 'subprocess_cli' && agent.prompt_via === 'arg') this.promptInArgs.push(name);
  }

  flush(): void {
    if (this.strippedFor.length > 0) {
      this.log.warn(
        { agents: this.strippedFor },
        'proxy credentials (user:password@) were removed from the proxy variables these agents inherit; set pass_proxy_credentials: true for an agent that needs them',
      );
    }
    if (this.promptInArgs.length > 0) {
      this.log.warn(
        { agents: this.promptInArgs },
        'these agents get the prompt as a command-line argument (prompt_via: arg): any user on this machine can read it, and any secret in it, with ps; prefer prompt_via: stdin',
      );
    }
    this.strippedFor = [];
    this.promptInArgs = [];
  }
}

/** An agent that runs somewhere (acp, subprocess_cli) without a `cwd` gets the user's home. */
function agentWithDefaultCwd(agent: AgentConfig, home: string): AgentConfig {
  if (agent.cwd !== undefined || (agent.kind !== 'acp' && agent.kind !== 'subprocess_cli')) return agent;
  return { ...agent, cwd: home };
}

function settingsOf(agent: AgentConfig, config: BridgeConfig): AgentSettings {
  return {
    maxArtifactBytes: config.max_artifact_bytes,
    ...(agent.description ? { description: agent.description } : {}),
    timeoutMs: agent.timeout_s * 1000,
    approvalTimeoutMs: agent.approval_timeout_s * 1000,
    approvalRules: agent.approval_rules,
    pathJudge: approvalRulePaths,
    volatileInputFields: volatileInputFieldsOf(agent),
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
