/**
 * What stops an agent from running that the config's schema cannot see: a `cwd` that does not exist, a
 * `${VAR}` in its settings whose variable is not set, an `api_key_env` / `token_env` naming an unset variable.
 * Each failure says exactly what to change. The variables are read from this shell's environment: the one a
 * bridge started from here (`contactor up`) inherits.
 */
import { statSync } from 'node:fs';
import type { UnsetVar } from '../../config/config.js';
import type { AgentConfig } from '../../schema/config.js';
import type { Check } from './check.js';

/** The agent's working folder exists (a WSL agent's lives inside the distro: not checked from here). */
export function cwdCheck(name: string, agent: AgentConfig): Check | undefined {
  if (!agent.cwd || (agent.kind === 'acp' && agent.platform !== 'native')) return undefined;
  let isDir: boolean;
  try {
    isDir = statSync(agent.cwd).isDirectory();
  } catch {
    return {
      name: `agent ${name}`,
      status: 'fail',
      detail: `its cwd ${agent.cwd} does not exist`,
      fix: `create the folder (\`mkdir -p ${agent.cwd}\`), or fix \`cwd:\` in config.yaml (agents.${name}.cwd)`,
    };
  }
  return isDir
    ? undefined
    : {
        name: `agent ${name}`,
        status: 'fail',
        detail: `its cwd ${agent.cwd} is not a folder`,
        fix: `fix \`cwd:\` in config.yaml (agents.${name}.cwd)`,
      };
}

/** `${VAR}`s in the agent's settings that are not set: the agent would start with "" in their place. */
export function unsetVarChecks(name: string, unset: readonly UnsetVar[]): Check[] {
  return unset
    .filter((ref) => ref.key.startsWith(`agents.${name}.`))
    .map((ref) => ({
      name: `agent ${name}`,
      status: 'fail',
      detail: `${ref.where}: ${ref.key} uses \${${ref.name}}, which is not set`,
      fix: `set ${ref.name} in the environment the bridge starts from (\`export ${ref.name}=…\`, then \`contactor down && contactor up\`), or change ${ref.key} in config.yaml`,
    }));
}

/** The variable an http_api agent's key or an a2a peer's token is read from at each request. */
export function secretVarCheck(name: string, agent: AgentConfig, env: NodeJS.ProcessEnv): Check | undefined {
  const variable = agent.kind === 'http_api' ? agent.api_key_env : agent.kind === 'a2a' ? agent.token_env : undefined;
  const key = agent.kind === 'http_api' ? 'api_key_env' : 'token_env';
  // Looked up in the agent's own `env` first, then the bridge's (backends/http-api/backend.ts, a2a/backend.ts).
  if (!variable || agent.env[variable] || env[variable]) return undefined;
  return {
    name: `agent ${name}`,
    status: 'fail',
    detail: `${key}: ${variable} is not set, so every task fails`,
    fix: `set ${variable} in the environment the bridge starts from (\`export ${variable}=…\`, then \`contactor down && contactor up\`), or remove ${key} from agents.${name} in config.yaml`,
  };
}
