/**
 * The fallback backend for agents that speak no protocol: one process per turn, the prompt on stdin (or
 * as the last argument), stdout as the one artifact, the exit code as the verdict. What it cannot do is
 * said on its card (seed: "关键不在它有什么，在它缺什么能被告知").
 */
import { stat, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { SubprocessCliAgentConfig } from '../schema/config.js';
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../ports.js';
import { promptWithAttachments, writeAttachments } from './attachment-files.js';
import {
  destroyPipes,
  exited,
  pipesClosed,
  spawnChild,
  started,
  stopProcessTree,
  StderrTail,
  type AgentChild,
  type ChildExit,
  type ChildSpec,
} from './child-process.js';
import { SHUTTING_DOWN, STOPPED } from './outcomes.js';
import { nodeWin32Probe, resolveWin32Command } from './win32-command.js';

export interface CliBackendOptions {
  /** The agent's configured name. */
  name: string;
  config: SubprocessCliAgentConfig;
  /** What agents may inherit, plus CONTACTOR_URL / CONTACTOR_TOKEN / CONTACTOR_AGENT (built by wiring). */
  baseEnv: Record<string, string>;
  /** Whether the runtime appends the decision contract, the only way a plain CLI can ask (default true). */
  decisionContract?: boolean;
  /** SIGTERM → SIGKILL grace when a run is stopped (default 2000 ms). */
  stopGraceMs?: number;
  /** Stdout kept per run; the rest is drained and dropped, and the receipt says so (default 16 MiB). */
  maxOutputBytes?: number;
  /** After exit, how long to wait for stdout to close before giving up on a grandchild holding it. */
  drainMs?: number;
}

const CLI_TRAITS: AgentTraits = {
  backend: 'subprocess_cli',
  streaming: false,
  // With the decision contract (the agent's append_decision_contract) a CLI can ask at the end of a run.
  inputRequired: true,
  // Cancel stops the process tree (stopRun), so the work really stops mid-run.
  interruptible: true,
  multiTurn: false,
  limits: cliLimits(true),
};

function cliLimits(asks: boolean): string {
  const rest = 'the reply arrives in one piece when the process exits; no session reuse (every task is a new process)';
  return asks ? `asks only for decisions, at the end of a run (no tool permissions); ${rest}` : rest;
}

export class CliBackend implements AgentBackend {
  readonly traits: AgentTraits;
  /** Running children and how to stop each one as its run would (marking the run stopped). */
  private readonly running = new Map<AgentChild, () => Promise<void>>();
  /** Runs and background reaps still in flight, so `close` can wait for every process. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: CliBackendOptions) {
    const asks = options.decisionContract ?? true;
    this.traits = { ...CLI_TRAITS, inputRequired: asks, limits: cliLimits(asks) };
  }

  run(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (this.closed) {
      return Promise.resolve(SHUTTING_DOWN);
    }
    return this.track(this.runWithAttachments(turn, report));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running.values()].map((stop) => stop()));
    await Promise.allSettled([...this.inFlight]);
  }

  private async runWithAttachments(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (turn.signal.aborted) return STOPPED;
    const files = await writeAttachments(turn.attachments);
    try {
      return await this.runProcess(turn, report, promptWithAttachments(turn.text, files.entries));
    } finally {
      if (files.dir !== undefined) await rm(files.dir, { recursive: true, force: true });
    }
  }

  private async runProcess(turn: Turn, report: TurnReporter, prompt: string): Promise<TurnOutcome> {
    const { config } = this.options;
    const program = config.command[0]!;
    const promptVia = config.prompt_via;
    const cwd = turn.cwd ?? config.cwd;
    const cwdProblem = await checkCwd(cwd);
    if (cwdProblem !== undefined) return { kind: 'undelivered', retryable: false, reason: cwdProblem };

    const command = promptVia === 'arg' ? [...config.command, ...config.prompt_flag, prompt] : config.command;
    const env = this.envFor(turn);
    let child: AgentChild;
    try {
      child = spawnChild({ ...launchable(command, env), cwd, env });
    } catch (err) {
      return couldNotStart(program, err);
    }
    const spawnError = await started(child);
    if (spawnError !== undefined) return couldNotStart(program, spawnError);

    const startedAt = Date.now();
    report.receipt({
      pid: child.pid,
      startedAt: new Date(startedAt).toISOString(),
      executionForm: 'subprocess',
      promptVia,
    });
    const stderr = new StderrTail(child.stderr);
    const stdout = collectOutput(child.stdout, this.options.maxOutputBytes ?? 16 * 1024 * 1024);
    child.stdin.end(promptVia === 'stdin' ? prompt : undefined);

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= stopProcessTree(child, { graceMs: this.options.stopGraceMs }));
    this.running.set(child, stop);
    turn.signal.addEventListener('abort', stop, { once: true });
    // Aborted or closed while spawning: the listener came too late.
    if (turn.signal.aborted || this.closed) void stop();

    const exit = await exited(child);
    await stopping;
    turn.signal.removeEventListener('abort', stop);
    this.running.delete(child);
    await pipesClosed(child, this.options.drainMs ?? 250);
    destroyPipes(child);
    // Whatever the agent left running (a daemon, a grandchild holding stdout) goes with it.
    this.track(stopProcessTree(child, { graceMs: this.options.stopGraceMs }));

    report.receipt({
      ...(exit.code !== null ? { exitCode: exit.code } : {}),
      ...(exit.signal !== null ? { signal: exit.signal } : {}),
      durationMs: Date.now() - startedAt,
      stdoutBytes: stdout.bytes(),
      ...(stdout.truncated() ? { stdoutTruncated: true } : {}),
    });
    const output = stdout.text();
    if (output !== '') report.text(output);
    return stopping !== undefined ? STOPPED : verdict(program, exit, stderr);
  }

  private envFor(turn: Turn): Record<string, string> {
    return {
      ...this.options.baseEnv,
      ...this.options.config.env,
      CONTACTOR_TASK_ID: turn.taskId,
      CONTACTOR_CONTEXT_ID: turn.contextId,
      CONTACTOR_MESSAGE_ID: turn.messageId,
      CONTACTOR_DEPTH: String(turn.delegationDepth),
      CONTACTOR_VISITED: turn.visitedAgents.join(','),
    };
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }
}

/** Seed: a non-zero exit is a logic failure (a retry gets the same error); empty output still completes. */
function verdict(program: string, exit: ChildExit, stderr: StderrTail): TurnOutcome {
  if (exit.code === 0) return { kind: 'completed', exitCode: 0 };
  const last = stderr.lastLine();
  const what =
    exit.code !== null ? `exited with code ${exit.code}` : `was killed by signal ${exit.signal ?? 'unknown'}`;
  return {
    kind: 'failed',
    retryable: false,
    reason: `${program} ${what}${last ? `: ${last}` : ''}`,
    ...(exit.code !== null ? { exitCode: exit.code } : {}),
    stderrTail: stderr.text(),
  };
}

/** On Windows, npm's `.cmd` shims cannot be spawned without a shell; win32-command.ts resolves them. */
function launchable(
  command: readonly string[],
  env: Record<string, string>,
): Pick<ChildSpec, 'command' | 'windowsVerbatimArguments'> {
  if (process.platform !== 'win32') return { command };
  const launch = resolveWin32Command(command, env, nodeWin32Probe);
  return { command: [launch.program, ...launch.args], windowsVerbatimArguments: launch.verbatim };
}

function couldNotStart(program: string, err: unknown): TurnOutcome {
  const message = err instanceof Error ? err.message : String(err);
  return {
    kind: 'undelivered',
    retryable: false,
    reason: `could not start ${program}: ${message}; check the command in config`,
  };
}

async function checkCwd(cwd: string | undefined): Promise<string | undefined> {
  if (cwd === undefined) return undefined;
  const info = await stat(cwd).catch(() => undefined);
  return info?.isDirectory()
    ? undefined
    : `working directory ${cwd} does not exist; check the task's cwd or cwd in config`;
}

function collectOutput(stream: Readable, maxBytes: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept >= maxBytes) return;
    const part = chunk.subarray(0, maxBytes - kept);
    chunks.push(part);
    kept += part.length;
  });
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    bytes: () => total,
    truncated: () => total > maxBytes,
  };
}
