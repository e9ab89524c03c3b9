/**
 * The agent child-process lifecycle shared by every backend that runs a local program (CLI and ACP).
 *
 * Lifecycle: `spawnChild` → await `started` (spawn errors such as ENOENT arrive asynchronously) → attach
 * a `StderrTail` at once (a child that fills its stderr pipe blocks forever) → talk over stdin/stdout →
 * `exited` → `destroyPipes`. To stop early, or to reap what a finished child left behind, call
 * `stopProcessTree`, which resolves only once the child has exited and its tree is gone or SIGKILLed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable } from 'node:stream';
import { groupAlive, runTaskkill, signalGroup, taskkillCommand, type TreeKill } from './process-tree.js';
import { newSpawnMark, rememberSpawnMark, SPAWN_MARK } from './spawn-marks.js';

export type AgentChild = ChildProcessWithoutNullStreams;

export interface ChildSpec {
  /** Program first, then its arguments. Never passed through a shell. */
  command: readonly string[];
  cwd?: string;
  /** The child's whole environment: nothing of this process's environment is inherited. */
  env: Record<string, string>;
  /** Windows only: the arguments are an already quoted cmd.exe line (see win32-command.ts). */
  windowsVerbatimArguments?: boolean;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StopOptions {
  /** Time between SIGTERM and SIGKILL (default 2000 ms). */
  graceMs?: number;
  /** Time to wait after closing stdin before SIGTERM, for agents that exit on EOF (default 0). */
  eofMs?: number;
  /** How long to wait for the exit after the last kill before giving up on it (default 5000 ms). */
  exitWaitMs?: number;
  /** How long taskkill may take to answer before it counts as failed (default: `exitWaitMs`). */
  taskkillWaitMs?: number;
  /** How the tree is stopped; the platform's own way by default. Tests pass a failing taskkill stand-in. */
  treeKill?: TreeKill;
}

/** What `stopProcessTree` achieved. `problems` names what could not be stopped, for receipts and logs. */
export interface StopResult {
  exited: boolean;
  problems: string[];
}

const IS_WINDOWS = process.platform === 'win32';
const POLL_MS = 25;
/** After SIGKILL the kernel needs no grace; this only bounds the wait if something is very wrong. */
const AFTER_KILL_MS = 5000;
/** The platform's way to stop a tree: process groups on POSIX, `taskkill /T /F` on Windows. */
export const PLATFORM_TREE_KILL: TreeKill = IS_WINDOWS
  ? { kind: 'taskkill', command: taskkillCommand }
  : { kind: 'group' };

/**
 * Spawns with `shell: false` and pipes on all three streams. On POSIX the child leads a new process
 * group so `stopProcessTree` can reach its descendants. Throws only for malformed arguments.
 */
export function spawnChild(spec: ChildSpec): AgentChild {
  const [program, ...args] = spec.command;
  if (program === undefined) throw new Error('command needs at least the program to run');
  // Its descendants inherit the mark wherever they go (spawn-marks.ts), so they can be found and stopped.
  const mark = newSpawnMark();
  const child = spawn(program, args, {
    cwd: spec.cwd,
    env: { ...spec.env, [SPAWN_MARK]: mark },
    shell: false,
    detached: !IS_WINDOWS,
    windowsHide: true,
    windowsVerbatimArguments: spec.windowsVerbatimArguments ?? false,
    stdio: 'pipe',
  });
  // Without listeners a failed kill or a write to a child that already exited (EPIPE) would crash the
  // bridge; both are ordinary here and show up as the child's exit instead.
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  rememberSpawnMark(child, mark);
  return child;
}

/** Resolves with the spawn error (ENOENT, EACCES, ...) or undefined once the child is running. */
export function started(child: AgentChild): Promise<Error | undefined> {
  if (child.pid !== undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (err) => resolve(err));
  });
}

/** Resolves when a started child has exited (at once if it already has). */
export function exited(child: AgentChild): Promise<ChildExit> {
  if (hasExited(child)) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Waits up to `ms` for the child's pipes to close after exit. A grandchild that inherited stdout keeps
 * it open after the child is gone; the caller must not wait for it forever.
 */
export async function pipesClosed(child: AgentChild, ms: number): Promise<boolean> {
  if (child.stdout.closed && child.stderr.closed) return true;
  const closed = new Promise<true>((resolve) => child.once('close', () => resolve(true)));
  return (await within(closed, ms)) ?? false;
}

export function destroyPipes(child: AgentChild): void {
  child.stdin.destroy();
  child.stdout.destroy();
  child.stderr.destroy();
}

/**
 * Keeps the last `maxBytes` of a stream and drains it continuously, so a child flooding stderr never
 * blocks on a full pipe.
 */
export class StderrTail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes seen since the start: a mark taken at a turn's start (`since`) reads that turn's stderr only. */
  private total = 0;
  /** The last chunk let go ended a line. */
  private droppedLineEnd = true;

  constructor(
    stream: Readable,
    private readonly maxBytes = 8192,
  ) {
    stream.on('data', (chunk: Buffer) => this.push(chunk));
    stream.on('error', () => undefined); // a broken pipe only ends the tail
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    // The cut can split a UTF-8 sequence; drop the replacement characters it leaves at the front.
    return all
      .subarray(Math.max(0, all.length - this.maxBytes))
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
  }

  /** The last `n` lines, trailing whitespace trimmed. */
  lastLines(n: number): string {
    return this.text().trimEnd().split(/\r?\n/).slice(-n).join('\n');
  }

  /** Where the stream is now, for `since`. */
  mark(): number {
    return this.total;
  }

  /**
   * What was written after `mark`, as whole lines (a line cut by the kept size is dropped), the last
   * `n` of them, trailing whitespace trimmed.
   */
  since(mark: number, n: number): string {
    const kept = Buffer.concat(this.chunks);
    const keptFrom = this.total - kept.length;
    const cut = Math.max(mark - keptFrom, kept.length - this.maxBytes, 0);
    let text = kept.subarray(cut).toString('utf8');
    // Started inside a line (the kept size ran out): that line's start is lost, so it goes.
    const before = cut > 0 ? kept[cut - 1] === 0x0a : keptFrom === 0 || this.droppedLineEnd;
    if (cut !== mark - keptFrom && !before) text = text.slice(text.indexOf('\n') + 1);
    return text.trimEnd().split(/\r?\n/).slice(-n).join('\n');
  }

  /** The last non-empty line, trimmed ('' when there is none). */
  lastLine(): string {
    const lines = this.text().split(/\r?\n/);
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      const line = lines[i]!.trim();
      if (line !== '') return line;
    }
    return '';
  }

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.total += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.maxBytes) {
      const dropped = this.chunks.shift()!;
      this.droppedLineEnd = dropped.at(-1) === 0x0a;
      this.size -= dropped.length;
    }
  }
}

/**
 * Stops a child and everything it started: stdin end → SIGTERM to the group → SIGKILL after `graceMs`
 * if any member is still running. On Windows: `taskkill /T /F`; when that fails (access denied, a Windows
 * without `/T` such as Wine's), `child.kill()` (TerminateProcess) at least ends the child, and the result
 * says its descendants may still run. Every wait is bounded: resolves once the child has exited and
 * (POSIX) no member of its group is running, or after `exitWaitMs` with `exited: false`. Safe to call on
 * a child that has already exited, to reap descendants it left behind.
 */
export async function stopProcessTree(child: AgentChild, options: StopOptions = {}): Promise<StopResult> {
  const pid = child.pid;
  if (pid === undefined) return { exited: true, problems: [] };
  const { graceMs = 2000, eofMs = 0, exitWaitMs = AFTER_KILL_MS, treeKill = PLATFORM_TREE_KILL } = options;
  const taskkillWaitMs = options.taskkillWaitMs ?? exitWaitMs;
  const exit = exited(child);
  if (!child.stdin.destroyed && !child.stdin.writableEnded) child.stdin.end();
  const byGroup = treeKill.kind === 'group';
  const treeGone = (): boolean => hasExited(child) && (!byGroup || !groupAlive(pid));
  if (eofMs > 0) await until(treeGone, eofMs);
  if (treeGone()) return { exited: true, problems: [] };

  const problems: string[] = [];
  if (treeKill.kind === 'taskkill') {
    if (!hasExited(child)) {
      const { failure } = await runTaskkill(treeKill.command(pid), taskkillWaitMs);
      if (failure !== undefined) {
        problems.push(`taskkill failed (${failure}); its descendants may still run`);
        if (!hasExited(child)) child.kill('SIGKILL');
      }
    }
  } else {
    if (!signalGroup(pid, 'SIGTERM')) child.kill('SIGTERM');
    if (!(await until(treeGone, graceMs))) {
      if (!signalGroup(pid, 'SIGKILL')) child.kill('SIGKILL');
    }
  }
  const done = (await within(exit, exitWaitMs)) !== undefined;
  if (!done) problems.push(`process ${pid} did not exit within ${exitWaitMs} ms of being killed`);
  else if (byGroup && !(await until(treeGone, exitWaitMs)))
    problems.push(`members of process group ${pid} survived SIGKILL`);
  return { exited: done, problems };
}

function hasExited(child: AgentChild): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/** Resolves with what `promise` resolves to, or undefined once `ms` pass first; the timer is always cleared. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves when `signal` aborts (at once if it already has); never rejects. */
export function whenAborted(signal: AbortSignal): Promise<'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
}
