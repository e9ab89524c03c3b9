/**
 * The fallback backend for agents that speak no protocol: one process per turn, the prompt on stdin (or
 * as the last argument), stdout as the one artifact, the exit code as the verdict. What it cannot do is
 * said on its card: what an agent lacks matters as much as what it has, so callers are told.
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { SubprocessCliAgentConfig } from '../../schema/config.js';
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../../ports.js';
import { promptWithAttachments, writeAttachments } from '../shared/attachment-files.js';
import { makeRunTempDirSync } from '../shared/run-temp-dirs.js';
import {
  destroyPipes,
  pipesClosed,
  spawnChild,
  started,
  StderrTail,
  type AgentChild,
  type ChildExit,
  type StopOptions,
} from '../process/child-process.js';
import type { TreeKill } from '../process/process-tree.js';
import { stopChildAndDescendants } from '../process/stop-all.js';
import { processStartOf } from '../process/process-start.js';
import { SHUTTING_DOWN, STOPPED } from '../shared/outcomes.js';
import { currentAppExe, envForProgram } from '../process/agent-env.js';
import { cliCommandLine, type CliCommandLine } from './command-line.js';
import { nodeWin32Probe, type Win32Probe } from '../process/win32-command.js';
import { RunStop } from './run-stop.js';

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
  /** How process trees are stopped (default: the platform's way); tests pass a failing taskkill stand-in. */
  treeKill?: TreeKill;
  /** How long a stopped child may take to exit before the run gives up on it (default 5000 ms). */
  exitWaitMs?: number;
  /** How long taskkill may take to answer before it counts as failed (default: `exitWaitMs`). */
  taskkillWaitMs?: number;
  /** The desktop app's exe (default: this process's, when it is Electron); only it gets ELECTRON_RUN_AS_NODE. */
  appExe?: string | undefined;
  /** Tests of the Windows command line on Linux: the platform and a fake file system. */
  windows?: { platform: NodeJS.Platform; probe: Win32Probe };
}

const CLI_TRAITS: AgentTraits = {
  backend: 'subprocess_cli',
  streaming: false,
  // With the decision contract (the agent's append_decision_contract) a CLI can ask at the end of a run.
  inputRequired: true,
  // Cancel stops the process tree (stopRun), so the work really stops mid-run.
  interruptible: true,
  multiTurn: false,
  // What it may ask is said by the card from `backend` and `inputRequired` (transport/cards.ts).
  limits: 'the reply arrives in one piece when the process exits; no session reuse (every task is a new process)',
};

export class CliBackend implements AgentBackend {
  readonly traits: AgentTraits;
  /** Running children and how to stop each one as its run would (marking the run stopped). */
  private readonly running = new Map<AgentChild, () => Promise<unknown>>();
  /** Runs and background reaps still in flight, so `close` can wait for every process. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: CliBackendOptions) {
    const asks = options.decisionContract ?? true;
    this.traits = { ...CLI_TRAITS, inputRequired: asks };
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

    const env = this.envFor(turn);
    let line: CliCommandLine;
    let promptDir: string | undefined;
    try {
      line = cliCommandLine({
        command: config.command,
        promptVia,
        promptFlag: config.prompt_flag,
        prompt,
        env,
        platform: this.options.windows?.platform ?? process.platform,
        probe: this.options.windows?.probe ?? nodeWin32Probe,
        // Only a batch file with a multi-line prompt needs one (command-line.ts).
        promptFilePath: () => join((promptDir = makeRunTempDirSync('prompt')), 'prompt.md'),
      });
      if (line.promptFile)
        await writeFile(line.promptFile.path, line.promptFile.text, { encoding: 'utf8', mode: 0o600 });
    } catch (err) {
      if (promptDir !== undefined) await rm(promptDir, { recursive: true, force: true });
      return couldNotStart(program, err, this.commandKey());
    }
    try {
      return await this.spawnAndWait({ turn, report, program, line, env, cwd, prompt, promptVia });
    } finally {
      if (promptDir !== undefined) await rm(promptDir, { recursive: true, force: true });
    }
  }

  private async spawnAndWait(run: SpawnRequest): Promise<TurnOutcome> {
    const spawned = await this.spawn(run);
    if ('outcome' in spawned) return spawned.outcome;
    const { child } = spawned;
    const startedAt = Date.now();
    reportStarted(run, child, startedAt);
    const stderr = new StderrTail(child.stderr);
    const stdout = collectOutput(child.stdout, this.options.maxOutputBytes ?? 16 * 1024 * 1024);
    child.stdin.end(run.promptVia === 'stdin' ? run.prompt : undefined);

    const stop = new RunStop(child, this.stopOptions());
    this.running.set(child, stop.stop);
    run.turn.signal.addEventListener('abort', stop.stop, { once: true });
    // Aborted or closed while spawning: the listener came too late.
    if (run.turn.signal.aborted || this.closed) void stop.stop();
    const ended = await stop.ended();
    run.turn.signal.removeEventListener('abort', stop.stop);
    this.running.delete(child);
    const stopResult = await stop.result();
    if (!('code' in ended)) {
      destroyPipes(child);
      run.report.receipt({ durationMs: Date.now() - startedAt, unstopped: ended.problems });
      return {
        kind: 'failed',
        retryable: true,
        reason: `stopped, but process ${child.pid} could not be ended: ${ended.problems.join('; ')}`,
      };
    }
    await pipesClosed(child, this.options.drainMs ?? 250);
    destroyPipes(child);
    // Whatever the agent left running (a daemon, a grandchild holding stdout) goes with it.
    this.track(stopChildAndDescendants(child, this.stopOptions()));
    if (stopResult?.problems.length) run.report.receipt({ unstopped: stopResult.problems });
    reportOutput(run.report, ended, stdout, startedAt);
    return stop.requestedStop ? STOPPED : verdict(run.program, ended, stderr);
  }

  /** The config key a failure to start points at. */
  private commandKey(): string {
    return `agents.${this.options.name}.command`;
  }

  /** The child, started (spawn errors such as ENOENT arrive asynchronously), or why it could not be. */
  private async spawn(run: SpawnRequest): Promise<{ child: AgentChild } | { outcome: TurnOutcome }> {
    let child: AgentChild;
    try {
      const appExe = 'appExe' in this.options ? this.options.appExe : currentAppExe();
      child = spawnChild({
        command: run.line.command,
        windowsVerbatimArguments: run.line.windowsVerbatimArguments,
        cwd: run.cwd,
        env: envForProgram(run.line.command[0]!, run.env, appExe),
      });
    } catch (err) {
      return { outcome: couldNotStart(run.program, err, this.commandKey()) };
    }
    const spawnError = await started(child);
    return spawnError === undefined
      ? { child }
      : { outcome: couldNotStart(run.program, spawnError, this.commandKey()) };
  }

  private stopOptions(): StopOptions {
    return {
      graceMs: this.options.stopGraceMs,
      ...(this.options.treeKill ? { treeKill: this.options.treeKill } : {}),
      ...(this.options.exitWaitMs !== undefined ? { exitWaitMs: this.options.exitWaitMs } : {}),
      ...(this.options.taskkillWaitMs !== undefined ? { taskkillWaitMs: this.options.taskkillWaitMs } : {}),
    };
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

/** What runProcess resolved for one run: the command line, its environment and where it runs. */
interface SpawnRequest {
  turn: Turn;
  report: TurnReporter;
  /** The configured program, as failures name it. */
  program: string;
  line: CliCommandLine;
  env: Record<string, string>;
  cwd: string | undefined;
  prompt: string;
  promptVia: SubprocessCliAgentConfig['prompt_via'];
}

function reportStarted(run: SpawnRequest, child: AgentChild, startedAt: number): void {
  run.report.receipt({
    pid: child.pid,
    startedAt: new Date(startedAt).toISOString(),
    executionForm: 'subprocess',
    promptVia: run.line.promptFile ? 'file' : run.promptVia,
  });
  // With its pid, the start time that tells this process from a later one with the same pid: a restart
  // after a kill -9 stops it by the two (recorded-agents.ts). Windows asks PowerShell, so never awaited:
  // an answer that comes after the exit is dropped (the turn has no process left to record).
  void processStartOf(child.pid).then((pidStart) => {
    if (pidStart !== undefined && child.exitCode === null && child.signalCode === null)
      run.report.receipt({ pidStart });
  });
}

function reportOutput(report: TurnReporter, exit: ChildExit, stdout: CollectedOutput, startedAt: number): void {
  if (stdout.truncated()) report.truncated?.({ at: stdout.kept(), droppedBytes: stdout.bytes() - stdout.kept() });
  report.receipt({
    ...(exit.code !== null ? { exitCode: exit.code } : {}),
    ...(exit.signal !== null ? { signal: exit.signal } : {}),
    durationMs: Date.now() - startedAt,
    stdoutBytes: stdout.bytes(),
    ...(stdout.truncated() ? { stdoutTruncated: true } : {}),
  });
  const output = stdout.text();
  if (output !== '') report.text(output);
}

/** A non-zero exit is a logic failure (a retry gets the same error); empty output still completes. */
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

function couldNotStart(program: string, err: unknown, key: string): TurnOutcome {
  const message = err instanceof Error ? err.message : String(err);
  // A missing program is the common case: say the change that fixes it.
  const fix =
    (err as NodeJS.ErrnoException).code === 'ENOENT'
      ? `install ${program}, or put its full path in config.yaml (${key})`
      : `check ${key} in config.yaml`;
  return { kind: 'undelivered', retryable: false, reason: `could not start ${program}: ${message}; ${fix}` };
}

async function checkCwd(cwd: string | undefined): Promise<string | undefined> {
  if (cwd === undefined) return undefined;
  const info = await stat(cwd).catch(() => undefined);
  return info?.isDirectory()
    ? undefined
    : `working directory ${cwd} does not exist; create the folder, or fix \`cwd:\` in config.yaml (or the task's cwd)`;
}

type CollectedOutput = ReturnType<typeof collectOutput>;

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
    kept: () => kept,
    truncated: () => total > maxBytes,
  };
}
