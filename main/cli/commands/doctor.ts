/**
 * `contactor doctor`: every check with a fix hint — config valid, agents' programs found, an ACP
 * `initialize` probe per ACP agent, WSL distros, discovery file sane, bridge reachable, token accepted.
 * Exit 0 when all pass, else 2.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { AgentConfig, BridgeConfig } from '../../schema/config.js';
import type { UnsetVar } from '../../config/config.js';
import { cwdCheck, secretVarCheck, unsetVarChecks } from '../doctor/agent-checks.js';
import { HTTP_PROBE_TIMEOUT_MS, probeA2aPeer, probeHttpApi } from '../doctor/http-probes.js';
import { AgentListSchema } from '../../schema/cli.js';
import { probeCheck } from '../doctor/acp-probe-report.js';
import { portInUse, type Presence } from '../bridge-client/bridge-client.js';
import { foreignBridgeDetail, isOwnBridge, OTHER_PORT_FIX } from '../bridge-client/foreign-bridge.js';
import type { Health } from '../../schema/discovery.js';
import { printCheck, type Check } from '../doctor/check.js';
import { configState } from './status.js';
import { runCommand } from '../command-runner.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { isAlive } from '../bridge-client/pid.js';
import { configLocation, dataDirOf, readConfig } from '../settings.js';
import { agentWarnings } from './logs.js';
import { cliVersion } from '../version.js';
import { resolveProgram } from '../scan/which.js';
import { wslChecks } from '../wsl/wsl-checks.js';
import { npmPackageOf } from '../../config/known-agents.js';
import { dataDirModesCheck } from '../doctor/data-dir-check.js';
import { mcpRegistrationChecks } from '../mcp-clients/registration.js';
import { skillHome } from './setup.js';

export function registerDoctor(program: Command, run: Runner): void {
  program
    .command('doctor')
    .description('check the setup and say how to fix each problem')
    .option('--fix', 'make the data dir user-only (0700 / 0600)')
    .option('--agents', 'also ask every http_api and a2a agent over the network (ACP agents are always probed)')
    .action(run(doctor));
}

async function doctor(cli: CliContext, options: { fix?: boolean; agents?: boolean } = {}): Promise<number> {
  const checks: Check[] = [];
  const read = checkConfig(cli, checks);
  if (read)
    checks.push(
      ...(await checkAgents(read.config, read.unset, cli.env, dataDirOf(cli.opts, cli.env), options.agents === true)),
    );
  const config = read?.config;
  // Each MCP client installed here: does it have contactor mcp, and can it start it?
  const home = skillHome(cli.env, process.platform);
  checks.push(...mcpRegistrationChecks(home.home, cli.env, home.platform).map(({ client: _, ...check }) => check));
  checks.push(...(await wslChecks({ config, platform: process.platform, env: cli.env, run: runCommand })));
  if (located(cli, checks)) {
    const presence = await cli.client().presence();
    const foreign = foreignHealth(cli, presence);
    checkDiscovery(cli, checks, foreign !== undefined);
    checks.push(dataDirModesCheck(cli.address().dataDir, options.fix === true));
    if (foreign) {
      const { url, dataDir } = cli.address();
      checks.push({
        name: 'bridge',
        status: 'fail',
        detail: foreignBridgeDetail(url, foreign, dataDir),
        fix: OTHER_PORT_FIX,
      });
    } else await checkBridge(cli, checks, presence);
  }
  const ok = checks.every((c) => c.status !== 'fail');
  if (cli.json) cli.out.doc({ ok, checks });
  else {
    for (const c of checks) printCheck(cli.out, c);
    cli.out.line(ok ? 'all checks passed' : `${checks.filter((c) => c.status === 'fail').length} problem(s) found`);
  }
  // 1 means "a task failed" (docs/contract.md#cli): a setup problem is the config's, like bad usage.
  return ok ? EXIT.completed : EXIT.usage;
}

function checkConfig(cli: CliContext, checks: Check[]): { config: BridgeConfig; unset: UnsetVar[] } | undefined {
  const where = configLocation(cli.opts, cli.env);
  if (!where.exists) {
    checks.push({
      name: 'config',
      status: 'skip',
      detail: `no config at ${where.path} yet (the bridge creates the default on its first start)`,
    });
    return undefined;
  }
  try {
    const config = readConfig(where.path, cli.env);
    checks.push({ name: 'config', status: 'ok', detail: `${where.path} is valid` });
    return { config, unset: [] };
  } catch (err) {
    // Unset `${VAR}`s in agents' settings: the bridge refuses the file, but say which agent each one is
    // for (and go on checking every agent) rather than stop at the first.
    const unset = agentVarsUnset(where.path, cli.env);
    if (unset) {
      const names = [...new Set(unset.unset.map((ref) => ref.name))];
      checks.push({
        name: 'config',
        status: 'fail',
        detail: `${where.path}: the bridge will not load it while ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not set (the agents below say where)`,
        fix: 'set each variable, or change the keys named below',
      });
      return unset;
    }
    const message = err instanceof CliError ? err.message.split('\n')[0]! : String(err);
    checks.push({
      name: 'config',
      status: 'fail',
      detail: message,
      fix: 'edit it (`contactor config edit`), then `contactor config check`',
    });
    return undefined;
  }
}

/** The config read with its unset `${VAR}`s as "", when every one of them is in an agent's settings. */
function agentVarsUnset(file: string, env: NodeJS.ProcessEnv): { config: BridgeConfig; unset: UnsetVar[] } | undefined {
  const unset: UnsetVar[] = [];
  try {
    const config = readConfig(file, env, (ref) => unset.push(ref));
    return unset.length > 0 && unset.every((ref) => ref.key.startsWith('agents.')) ? { config, unset } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Per agent: what would stop it from starting (its program, its cwd, unset variables), then its probe —
 * ACP agents' `initialize` always, http_api and a2a agents' with --agents — all probes at once.
 */
async function checkAgents(
  config: BridgeConfig,
  unset: UnsetVar[],
  env: NodeJS.ProcessEnv,
  dataDir: string,
  probeAll: boolean,
): Promise<Check[]> {
  const rows = Object.entries(config.agents).map(([name, agent]): [Check[], Promise<Check> | undefined] => {
    const [first, probe] = programCheck(name, agent, env, dataDir, probeAll);
    const problems = [cwdCheck(name, agent), secretVarCheck(name, agent, env), ...unsetVarChecks(name, unset)];
    const more = problems.filter((c): c is Check => c !== undefined);
    // An agent that cannot start is not probed: the probe would only fail the same way, less clearly.
    return [[first, ...more], more.length || !probe ? undefined : probe()];
  });
  const checks: Check[] = [];
  for (const [found, probe] of rows) {
    checks.push(...found);
    if (probe) checks.push(await probe);
  }
  return checks;
}

function programCheck(
  name: string,
  agent: AgentConfig,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  probeAll: boolean,
): [Check, (() => Promise<Check>) | undefined] {
  if (!('command' in agent)) {
    const check: Check = { name: `agent ${name}`, status: 'skip', detail: `${agent.kind}: no program to find` };
    return [check, probeAll ? () => httpProbe(name, agent, env) : undefined];
  }
  const program = agent.command[0]!;
  const platform = agent.kind === 'acp' ? agent.platform : 'native';
  if (platform !== 'native' && process.platform !== 'win32') {
    const detail = `runs on the ${platform} side; checked from Windows only`;
    return [{ name: `agent ${name}`, status: 'skip', detail }, undefined];
  }
  // A WSL agent's program lives inside the distro: only the probe, run through wsl.exe, can find it.
  const found = platform === 'wsl' ? 'in WSL' : resolveProgram(program, env);
  const check: Check = !found
    ? {
        name: `agent ${name}`,
        status: 'fail',
        detail: `${program} not found on PATH`,
        fix: installHint(program, `agents.${name}.command`),
      }
    : platform === 'wsl'
      ? {
          name: `agent ${name}`,
          status: 'skip',
          detail: `${program} runs in WSL: the probe below looks for it there`,
        }
      : { name: `agent ${name}`, status: 'ok', detail: `${program} → ${found}` };
  const probe =
    found && agent.kind === 'acp'
      ? () =>
          import('../doctor/acp-probe.js')
            .then(({ probeAcpAgent }) => probeAcpAgent({ name, config: agent, env, clientVersion: cliVersion() }))
            .then((r) => probeCheck(name, r))
            // What the agent last warned about while the bridge ran it often says why it fails now.
            .then((c) => (c.status === 'fail' ? withLogWarnings(c, agentWarnings(dataDir, name)) : c))
      : undefined;
  return [check, probe];
}

/** `contactor probe`'s network check of an http_api endpoint or an a2a peer, as a doctor line. */
async function httpProbe(
  name: string,
  agent: Extract<AgentConfig, { kind: 'http_api' | 'a2a' }>,
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  const outcome =
    agent.kind === 'http_api'
      ? await probeHttpApi(agent, env, HTTP_PROBE_TIMEOUT_MS)
      : await probeA2aPeer(name, agent, env, HTTP_PROBE_TIMEOUT_MS);
  return {
    name: `probe ${name}`,
    status: outcome.ok ? 'ok' : 'fail',
    detail: outcome.detail,
    ...(outcome.fix ? { fix: outcome.fix } : {}),
  };
}

/**
 * Where the bridge is comes from the discovery file, else the config: a config too broken to name an
 * address leaves nothing to check (the default address may be some other bridge).
 */
function located(cli: CliContext, checks: Check[]): boolean {
  try {
    cli.address();
    return true;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    checks.push({
      name: 'bridge',
      status: 'fail',
      detail: 'not checked: no discovery file, and the config above is invalid, so where a bridge listens is unknown',
      fix: 'fix the config, then `contactor up`',
    });
    return false;
  }
}

/**
 * The health of a bridge that answers at the address but is not this data dir's (another HOME's, say):
 * `contactor up` would not help, and its token is not ours. A CONTACTOR_URL names its bridge on purpose.
 */
function foreignHealth(cli: CliContext, presence: Presence): Health | undefined {
  if (cli.env.CONTACTOR_URL || presence.kind !== 'bridge') return undefined;
  return isOwnBridge(cli.address().discovery, presence.health) ? undefined : presence.health;
}

function checkDiscovery(cli: CliContext, checks: Check[], portTaken: boolean): void {
  const { dataDir, discovery } = cli.address();
  const file = path.join(dataDir, 'bridge.json');
  if (!discovery) {
    const exists = fileMode(file) !== undefined;
    checks.push(
      exists
        ? {
            name: 'discovery file',
            status: 'fail',
            detail: `${file} is not valid`,
            fix: 'stop any bridge (`contactor down`), delete the file, then `contactor up`',
          }
        : {
            name: 'discovery file',
            status: 'fail',
            detail: `none in ${dataDir}: no bridge running on this data dir`,
            // `up` refuses a port another data dir's bridge holds: say what it would say.
            fix: portTaken ? OTHER_PORT_FIX : '`contactor up`',
          },
    );
    return;
  }
  const problems: string[] = [];
  if (!isAlive(discovery.pid)) problems.push(`its pid ${discovery.pid} is not running (left by a crashed bridge)`);
  const mode = fileMode(file);
  if (process.platform !== 'win32' && mode !== undefined && (mode & 0o077) !== 0)
    problems.push(`permissions are ${(mode & 0o777).toString(8)}, not 600`);
  checks.push(
    problems.length
      ? {
          name: 'discovery file',
          status: 'fail',
          detail: `${file}: ${problems.join('; ')}`,
          fix: `\`contactor up\` rewrites it${mode !== undefined && mode & 0o077 ? `; or \`chmod 600 ${file}\`` : ''}`,
        }
      : { name: 'discovery file', status: 'ok', detail: `${file} (pid ${discovery.pid}, ${discovery.url})` },
  );
}

async function checkBridge(cli: CliContext, checks: Check[], found: Presence): Promise<void> {
  const client = cli.client();
  const { url } = client.address;
  if (found.kind === 'other') {
    checks.push({
      name: 'bridge',
      status: 'fail',
      detail: portInUse(url, found.detail).message.split(';')[0]!,
      fix: 'stop that program, or give the bridge another port: `contactor up --port <n>`, or `port:` in config.yaml',
    });
    return;
  }
  const health = found.kind === 'bridge' ? found.health : undefined;
  if (!health) {
    checks.push({
      name: 'bridge',
      status: 'fail',
      detail: `nothing answers at ${url}`,
      fix: '`contactor up` (its log is serve.log in the data dir)',
    });
    return;
  }
  checks.push({
    name: 'bridge',
    status: 'ok',
    detail: `contactor ${health.version} at ${url}, ${health.agents} agent${health.agents === 1 ? '' : 's'}`,
  });
  try {
    await client.call('agents/list', {}, AgentListSchema);
    checks.push({ name: 'token', status: 'ok', detail: 'accepted' });
    const config = await configState(client);
    if (config?.error)
      checks.push({
        name: 'config in use',
        status: 'fail',
        detail: `the bridge could not apply the latest edit and keeps the last good config: ${config.error}`,
        fix: 'fix the file; the bridge applies it on save (or `contactor reload`)',
      });
    else if (config)
      checks.push({
        name: 'config in use',
        status: 'ok',
        detail: `${config.path}${config.restartNeeded.length ? `; ${config.restartNeeded.join(', ')} changed: restart to apply` : ''}`,
      });
  } catch (err) {
    const unauthorized = err instanceof CliError && err.exitCode === EXIT.unauthorized;
    checks.push({
      name: 'token',
      status: 'fail',
      detail: unauthorized ? 'refused by the bridge' : (err as Error).message,
      fix: unauthorized
        ? 'unset CONTACTOR_TOKEN, or restart the bridge after `contactor token rotate`'
        : 'see the bridge log',
    });
  }
}

function fileMode(file: string): number | undefined {
  try {
    return statSync(file).mode;
  } catch {
    return undefined;
  }
}

/** How to get a missing program: the npm package of a known agent, else its full path in the config. */
export function installHint(program: string, key: string): string {
  const pkg = npmPackageOf(program);
  return pkg
    ? `install it (\`npm install -g ${pkg}\`), or put its full path in config.yaml (${key})`
    : `install it, or put its full path in config.yaml (${key})`;
}

function withLogWarnings(check: Check, warnings: string[]): Check {
  return warnings.length ? { ...check, log: warnings.join('\n') } : check;
}
