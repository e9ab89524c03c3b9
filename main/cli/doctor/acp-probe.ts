/**
 * `initialize` and nothing else, against an ACP agent started exactly as the ACP backend starts it
 * (backends/acp/launch.ts `planLaunch`), then the process tree stopped (backends/process/child-process.ts). It
 * tells `doctor` and `probe` what the agent declares, or why it could not be reached and what to do.
 * No session is opened, so no model is called and nothing is written.
 */
import { statSync } from 'node:fs';
import {
  client,
  DEFAULT_MAX_MESSAGE_BYTES,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type InitializeResponse,
} from '@agentclientprotocol/sdk';
import { clientCapabilities } from '../../backends/acp/client-capabilities.js';
import { describeLaunch, planLaunch, spawnPlan, type LaunchPlan } from '../../backends/acp/launch.js';
import {
  exited,
  pipesClosed,
  started,
  StderrTail,
  stopProcessTree,
  within,
} from '../../backends/process/child-process.js';
import { stderrCause } from '../../backends/process/stderr-cause.js';
import { nodeWin32Probe } from '../../backends/process/win32-command.js';
import type { AcpAgentConfig } from '../../schema/config.js';
import { agentStdioStream } from '../../backends/acp/stdio-stream.js';
import { inheritedAgentEnv } from '../../config/config.js';
import { npmPackageOf } from '../../config/known-agents.js';

const STDERR_LINES = 8;
const NOISE_KEPT = 3;

export interface AcpProbeInput {
  name: string;
  config: AcpAgentConfig;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** Default: the agent's `start_timeout_s`, the wait the bridge itself allows. */
  timeoutMs?: number;
  hostPlatform?: NodeJS.Platform;
}

export interface AcpDeclaration {
  protocolVersion: number;
  agentInfo: InitializeResponse['agentInfo'] | undefined;
  authMethods: NonNullable<InitializeResponse['authMethods']>;
  capabilities: NonNullable<InitializeResponse['agentCapabilities']>;
}

export type AcpProbeResult =
  | {
      ok: true;
      launch: string;
      via: LaunchPlan['via'];
      declared: AcpDeclaration;
      stdoutNoise: string[];
      /** From spawn to the answer to `initialize`: a cold start of a real agent takes 20-40 s. */
      startMs: number;
    }
  | { ok: false; launch: string; reason: string; fix: string; stderrTail: string; stdoutNoise: string[] };

function hostCwd(cwd: string | undefined): string {
  try {
    if (cwd && statSync(cwd).isDirectory()) return cwd;
  } catch {
    // a missing workspace does not keep `initialize` from answering; the task would report it
  }
  return process.cwd();
}

export async function probeAcpAgent(input: AcpProbeInput): Promise<AcpProbeResult> {
  const { name, config } = input;
  const timeoutMs = input.timeoutMs ?? config.start_timeout_s * 1000;
  let plan: LaunchPlan;
  try {
    plan = planLaunch({
      command: config.command,
      platform: config.platform,
      distro: config.distro,
      // `wsl.exe --cd ~`: initialize needs no workspace, and translating one is the backend's job.
      agentCwd: config.platform === 'wsl' ? '~' : hostCwd(config.cwd),
      hostCwd: hostCwd(config.cwd),
      env: { ...inheritedAgentEnv(input.env), CONTACTOR_AGENT: name, ...config.env },
      forwardEnv: [...Object.keys(config.env), 'CONTACTOR_AGENT'],
      hostPlatform: input.hostPlatform ?? process.platform,
      probe: nodeWin32Probe,
    });
  } catch (err) {
    const reason = `cannot run agent ${name}: ${(err as Error).message}`;
    return {
      ok: false,
      launch: config.command.join(' '),
      reason,
      fix: fixFor(name, 'config'),
      stderrTail: '',
      stdoutNoise: [],
    };
  }
  const launch = describeLaunch(plan);
  const noise: string[] = [];
  const fail = (reason: string, fix: string, stderr?: StderrTail): AcpProbeResult => ({
    ok: false,
    launch,
    reason,
    fix,
    stderrTail: stderr ? stderr.lastLines(STDERR_LINES) : '',
    stdoutNoise: noise.slice(0, NOISE_KEPT),
  });

  let child: ReturnType<typeof spawnPlan>;
  const spawnedAt = Date.now();
  try {
    child = spawnPlan(plan);
  } catch (err) {
    return fail(`could not start ${launch}: ${(err as Error).message}`, fixFor(name, 'config'));
  }
  const stderr = new StderrTail(child.stderr);
  const spawnError = (await started(child)) as NodeJS.ErrnoException | undefined;
  if (spawnError) {
    const kind = spawnError.code === 'ENOENT' ? 'missing' : spawnError.code === 'EACCES' ? 'denied' : 'exited';
    return fail(`could not start ${launch}: ${spawnError.message}`, fixFor(name, kind, plan));
  }
  // The bridge's own stdio stream: stdout lines that are not JSON-RPC are set aside and kept — a banner on
  // stdout is often exactly why an agent "does not answer".
  const stream = agentStdioStream(child.stdin, child.stdout, DEFAULT_MAX_MESSAGE_BYTES, {
    onNoise: (line) => noise.push(line),
    onTooLarge: (max) => noise.push(`a line of more than ${max} bytes without a line end`),
  });
  const conn = client({ name: 'contactor' }).connect(stream);
  try {
    let answer = await answerOrExit(
      conn.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        // What the bridge will offer this agent, so it declares the same.
        clientCapabilities: clientCapabilities(config),
        clientInfo: { name: 'contactor', version: input.clientVersion },
      }),
      child,
      timeoutMs,
    );
    // The closed stdout often rejects the request a moment before the exit status arrives; the exit says more.
    if (answer.kind === 'error' && !(answer.error instanceof RequestError))
      answer = (await within(exitOf(child), 2000)) ?? answer;
    if (answer.kind === 'exit') {
      await pipesClosed(child, 1000); // the last stderr lines usually name the cause
      const how = answer.code !== null ? `exit code ${answer.code}` : `signal ${answer.signal}`;
      // Its first error line, not only the last lines: a Node crash ends in frames and `Node.js v24…`.
      const cause = stderrCause(stderr.text());
      return fail(
        `${launch} exited during initialize (${how})${cause ? `: ${cause}` : ''}`,
        fixFor(name, 'exited', plan, noise),
        stderr,
      );
    }
    if (answer.kind === 'timeout')
      return fail(
        `no answer to initialize within ${timeoutMs / 1000} s`,
        fixFor(name, noise.length ? 'noise' : 'silent', plan, noise),
        stderr,
      );
    if (answer.kind === 'error') {
      const { error } = answer;
      const code = error instanceof RequestError ? ` (${error.code})` : '';
      return fail(`initialize failed${code}: ${error.message}`, fixFor(name, 'refused', plan), stderr);
    }
    const init = answer.value;
    if (init.protocolVersion !== PROTOCOL_VERSION)
      return fail(
        `the agent speaks ACP protocol version ${init.protocolVersion}; contactor speaks version ${PROTOCOL_VERSION}`,
        'update the agent (or its ACP adapter) to one that speaks ACP version 1',
        stderr,
      );
    return {
      ok: true,
      launch,
      via: plan.via,
      declared: {
        protocolVersion: init.protocolVersion,
        agentInfo: init.agentInfo ?? undefined,
        authMethods: init.authMethods ?? [],
        capabilities: init.agentCapabilities ?? {},
      },
      stdoutNoise: noise.slice(0, NOISE_KEPT),
      startMs: Date.now() - spawnedAt,
    };
  } finally {
    await stopProcessTree(child, { graceMs: 2000 });
    conn.close();
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

type Answer =
  | { kind: 'value'; value: InitializeResponse }
  | { kind: 'error'; error: Error }
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout' };

async function answerOrExit(
  request: Promise<InitializeResponse>,
  child: Parameters<typeof exited>[0],
  timeoutMs: number,
): Promise<Answer> {
  const settled = Promise.race<Answer>([
    request.then(
      (value) => ({ kind: 'value', value }),
      (error: unknown) => ({ kind: 'error', error: error instanceof Error ? error : new Error(String(error)) }),
    ),
    // An agent that dies answers nothing; its exit (and stderr) is the answer.
    exitOf(child),
  ]);
  return (await within(settled, timeoutMs)) ?? { kind: 'timeout' };
}

function exitOf(child: Parameters<typeof exited>[0]): Promise<Answer> {
  return exited(child).then((exit) => ({ kind: 'exit', ...exit }));
}

type FailureKind = 'config' | 'missing' | 'denied' | 'exited' | 'silent' | 'noise' | 'refused';

function fixFor(name: string, kind: FailureKind, plan?: LaunchPlan, noise: string[] = []): string {
  const key = `agents.${name}.command`;
  const run = plan ? `\`${describeLaunch(plan)}\`` : 'the command';
  switch (kind) {
    case 'config':
      return `correct ${key} in config.yaml, then \`contactor config check\``;
    case 'missing':
      return plan?.via === 'wsl'
        ? "install WSL (`wsl --install`), or set the agent's platform to native/windows"
        : npmPackageOf(plan?.program ?? '')
          ? `install the agent (\`npm install -g ${npmPackageOf(plan!.program)}\`), or put its full path in config.yaml (${key})`
          : `install the agent, or put its full path in config.yaml (${key})`;
    case 'denied':
      return `make ${plan?.program ?? 'the program'} executable (chmod +x), or fix ${key}`;
    case 'exited':
      return `run ${run} in a terminal to see why it stops; it must keep running and speak ACP on stdin/stdout${noise.length ? ' (it printed non-ACP text on stdout)' : ''}`;
    case 'silent':
      return `check that ${key} starts the agent in ACP mode (e.g. an --acp flag, or \`acp\` for opencode) and that it answers on stdout; an agent slower than that to start needs a larger agents.${name}.start_timeout_s`;
    case 'noise':
      return `it printed text that is not ACP on stdout (${JSON.stringify(noise[0] ?? '')}): start it in ACP mode (${key}), and keep banners and logs on stderr`;
    case 'refused':
      return "see the agent's stderr above; update the agent or its ACP adapter";
    default: {
      const never: never = kind;
      return never;
    }
  }
}
