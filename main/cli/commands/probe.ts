/**
 * `contactor probe <agent>`: what an agent declares, asked of the agent itself rather than the bridge.
 * ACP agents are started and sent `initialize` only (no session, no model call); the other kinds get the
 * check their protocol allows without sending work. Exit 0 when the agent answered, 1 when not, 2 for an
 * unknown agent or a config problem. Works with the bridge down.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { AgentConfig } from '../../schema/config.js';
import type { AcpProbeResult } from '../doctor/acp-probe.js';
import { agentLabel, capabilityList, PROBE_TIMEOUT_MS } from '../doctor/acp-probe-report.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { probeA2aPeer, probeHttpApi, type ProbeOutcome } from '../doctor/http-probes.js';
import { configLocation, readConfig } from '../settings.js';
import { cliVersion } from '../version.js';
import { resolveProgram } from '../scan/which.js';
import { shown } from '../render/screen-text.js';

export function registerProbe(program: Command, run: Runner): void {
  program
    .command('probe')
    .description('ask an agent what it declares (ACP: `initialize` only, no task is run); works with the bridge down')
    .argument('<agent>', 'the agent name in config.yaml')
    .option(
      '--timeout <seconds>',
      `how long to wait for the answer (default: an ACP agent's start_timeout_s, ${PROBE_TIMEOUT_MS / 1000} s for others)`,
      parseSeconds,
    )
    .action(run(probe));
}

async function probe(cli: CliContext, name: string, opts: { timeout?: number }): Promise<number> {
  const config = readConfig(configLocation(cli.opts, cli.env).path, cli.env);
  const agent = config.agents[name];
  if (!agent) {
    const known = Object.keys(config.agents);
    throw new CliError(
      `no agent named "${name}" in the config; ${known.length ? `agents: ${known.join(', ')}` : 'it has no agents yet (`contactor scan` proposes some)'}`,
      EXIT.usage,
    );
  }
  // One start timeout per ACP agent: the probe waits as long as the bridge would.
  const timeoutMs = (opts.timeout ?? (agent.kind === 'acp' ? agent.start_timeout_s : PROBE_TIMEOUT_MS / 1000)) * 1000;
  if (agent.kind === 'acp') return reportAcp(cli, name, await probeAcp(cli, name, agent, timeoutMs));
  const outcome = await probeOther(cli, name, agent, timeoutMs);
  if (cli.json) cli.out.doc({ agent: name, kind: agent.kind, ...outcome });
  else {
    cli.out.line(
      shown`${outcome.ok ? cli.out.c.green('✓') : cli.out.c.red('✗')} ${name} (${agent.kind}): ${outcome.detail}`,
    );
    if (!outcome.ok && outcome.fix) cli.out.line(`  fix: ${outcome.fix}`);
  }
  return outcome.ok ? EXIT.completed : EXIT.failed;
}

async function probeAcp(
  cli: CliContext,
  name: string,
  agent: Extract<AgentConfig, { kind: 'acp' }>,
  timeoutMs: number,
): Promise<AcpProbeResult> {
  // A Windows-side agent started from Linux would be a different program; WSL ones need wsl.exe (interop).
  const reachable =
    process.platform === 'win32' ||
    agent.platform === 'native' ||
    (agent.platform === 'wsl' && resolveProgram('wsl.exe', cli.env) !== undefined);
  if (!reachable)
    throw new CliError(
      `agent ${name} runs on the ${agent.platform} side; probe it from Windows (PowerShell, or the WSL wrapper of the desktop app)`,
      EXIT.usage,
    );
  if (cli.out.interactive && !cli.json) cli.out.note(`starting ${name} and asking it to initialize…`);
  // Loaded on use: the ACP SDK is not needed by the other verbs.
  const { probeAcpAgent } = await import('../doctor/acp-probe.js');
  return probeAcpAgent({ name, config: agent, env: cli.env, clientVersion: cliVersion(), timeoutMs });
}

function reportAcp(cli: CliContext, name: string, result: AcpProbeResult): number {
  if (cli.json) {
    cli.out.doc({ agent: name, kind: 'acp', ...result });
    return result.ok ? EXIT.completed : EXIT.failed;
  }
  const { out } = cli;
  if (!result.ok) {
    out.line(shown`${out.c.red('✗')} ${name} (acp): ${result.reason}`);
    out.line(`  command: ${result.launch}`);
    for (const line of result.stderrTail ? result.stderrTail.split('\n') : [])
      out.line(shown`  ${out.c.dim(`stderr| ${line}`)}`);
    for (const line of result.stdoutNoise) out.line(shown`  ${out.c.dim(`stdout| ${line}`)}`);
    out.line(`  fix: ${result.fix}`);
    return EXIT.failed;
  }
  const { declared } = result;
  const caps = capabilityList(declared);
  out.line(shown`${out.c.green('✓')} ${name} (acp): ${agentLabel(declared)}`);
  out.line(`  command:      ${result.launch}${result.via === 'direct' ? '' : ` (via ${result.via})`}`);
  out.line(`  protocol:     ACP v${declared.protocolVersion}`);
  out.line(`  capabilities: ${caps.length ? caps.join(', ') : 'text prompts only'}`);
  out.line(`  started in:   ${(result.startMs / 1000).toFixed(1)} s`);
  if (declared.authMethods.length === 0) out.line('  login:        none declared');
  for (const method of declared.authMethods)
    out.line(`  login:        ${method.name} (${method.id})${method.description ? `: ${method.description}` : ''}`);
  if (result.stdoutNoise.length)
    out.line(
      `  note:         it printed non-ACP text on stdout (${JSON.stringify(result.stdoutNoise[0])}); the bridge tolerates up to 50 lines a task`,
    );
  return EXIT.completed;
}

async function probeOther(
  cli: CliContext,
  name: string,
  agent: Exclude<AgentConfig, { kind: 'acp' }>,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  switch (agent.kind) {
    case 'subprocess_cli': {
      const program = agent.command[0]!;
      const found = resolveProgram(program, cli.env);
      return found
        ? {
            ok: true,
            detail: `${program} → ${found} (a one-shot CLI declares nothing before a task runs)`,
            data: { path: found },
          }
        : {
            ok: false,
            detail: `${program} not found on PATH`,
            fix: `install it, or put its full path in config.yaml (agents.${name}.command)`,
          };
    }
    case 'http_api':
      return probeHttpApi(agent, cli.env, timeoutMs);
    case 'a2a':
      return probeA2aPeer(name, agent, cli.env, timeoutMs);
    default: {
      const never: never = agent;
      return never;
    }
  }
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 600) throw new InvalidArgumentError('give seconds, from 0.1 to 600');
  return n;
}
