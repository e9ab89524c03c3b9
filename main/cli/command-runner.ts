/**
 * Running a short helper program (wsl.exe, cmd.exe, where.exe, wslpath) and keeping its raw output. The
 * probes take a `CommandRunner` as a parameter, so tests run them against stand-in scripts on PATH.
 */
import { spawn } from 'node:child_process';

export interface CommandResult {
  /** null when the program was ended by the timeout or a signal. */
  code: number | null;
  /** Raw bytes: wsl.exe and cmd.exe /u print UTF-16LE, the rest the OEM code page or UTF-8. */
  stdout: Buffer;
  stderr: Buffer;
  /** The program could not be started (ENOENT: not on PATH). */
  error?: NodeJS.ErrnoException;
  timedOut?: boolean;
}

export interface CommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export type CommandRunner = (
  program: string,
  args: readonly string[],
  options?: CommandOptions,
) => Promise<CommandResult>;

const DEFAULT_TIMEOUT_MS = 15_000;
/** These helpers print a few lines; anything past this is not worth keeping. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

export const runCommand: CommandRunner = (program, args, options = {}) =>
  new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(program, [...args], {
        cwd: options.cwd,
        env: options.env ?? process.env,
        shell: false,
        windowsHide: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      // Node throws, rather than emits, a spawn failure other than ENOENT, EACCES, EAGAIN, EMFILE and ENFILE.
      resolve({ code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), error: err as NodeJS.ErrnoException });
      return;
    }
    const keep = (into: Buffer[]) => (chunk: Buffer) => {
      if (size >= MAX_OUTPUT_BYTES) return;
      size += chunk.length;
      into.push(chunk);
    };
    child.stdout!.on('data', keep(stdout));
    child.stderr!.on('data', keep(stderr));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      // 'close' waits for the pipes, which a grandchild (a daemon it started) may hold open forever.
      child.stdout!.destroy();
      child.stderr!.destroy();
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const finish = (code: number | null, error?: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr),
        ...(error ? { error } : {}),
        ...(timedOut ? { timedOut } : {}),
      });
    };
    child.once('error', (err) => finish(null, err));
    child.once('close', (code) => finish(code));
  });

/** A one-line account of why a helper failed, for a check's detail. */
export function describeFailure(program: string, result: CommandResult, text: string): string {
  if (result.error) return `${program} could not be started (${result.error.code ?? result.error.message})`;
  if (result.timedOut) return `${program} did not finish in time`;
  const said = text
    .trim()
    .split(/\r?\n/)
    .find((l) => l.trim() !== '');
  return `${program} exited with code ${result.code}${said ? `: ${said.trim()}` : ''}`;
}
