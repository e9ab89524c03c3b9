/**
 * Which process instance a pid names (SECURITY.md#agent-processes): a pid is reused once its process has exited, so
 * a stored pid alone may name an unrelated program by the next start. Stored together with the time the
 * process started, it names one process only: same pid and same start = same process.
 *
 * - Linux: `linux:<boot id>:<starttime>`, from `/proc/<pid>/stat` field 22 (clock ticks since boot,
 *   proc(5)) and `/proc/sys/kernel/random/boot_id` (random(4)), which changes at each boot, when the
 *   tick count starts over.
 * - Windows: `win32:<creation time as FILETIME>`, from Windows PowerShell 5.1 (part of Windows 10/11, no
 *   install): `Get-Process -Id` (learn.microsoft.com/powershell/module/microsoft.powershell.management/get-process:
 *   an array of ids; ids with no process are errors that `-ErrorAction SilentlyContinue` skips), its
 *   `StartTime` (learn.microsoft.com/dotnet/api/system.diagnostics.process.starttime: the creation time
 *   the kernel keeps, via GetProcessTimes) and `DateTime.ToFileTimeUtc()`
 *   (learn.microsoft.com/dotnet/api/system.datetime.tofiletimeutc: an Int64, 100 ns since 1601 UTC), so
 *   the value is exact and the same at every query. One PowerShell run answers for many pids, bounded.
 * - Elsewhere (macOS): undefined; nothing is recorded, so nothing is stopped by pid.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface StartQueryOptions {
  platform?: NodeJS.Platform;
  /** The PowerShell program (default `powershell.exe`, found on PATH). */
  powershell?: string;
  /** Bound on one PowerShell run; on expiry the pids it did not answer for count as not found. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** `linux:<boot id>:<starttime>` of a running (not zombie) process, or undefined. */
export function linuxProcessStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the parenthesised name (which may hold spaces): field 3 (state) is [0], so field 22 is [19].
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    const ticks = fields[19];
    if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
    return `linux:${bootId()}:${ticks}`;
  } catch {
    return undefined; // no such process, or it exited while we looked
  }
}

let cachedBootId: string | undefined;
function bootId(): string {
  cachedBootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  return cachedBootId;
}

/** The PowerShell script: one `<pid> <FILETIME>` line per running process among `pids`. */
export function windowsStartScript(pids: readonly number[]): string {
  const ids = pids.map((pid) => String(Math.trunc(pid))).join(',');
  return (
    `Get-Process -Id ${ids} -ErrorAction SilentlyContinue | ` +
    `ForEach-Object { '{0} {1}' -f $_.Id, $_.StartTime.ToFileTimeUtc() }`
  );
}

/** The argv of one query (no profile, no prompt: it must neither read user scripts nor wait for input). */
export function windowsStartCommand(pids: readonly number[], powershell = 'powershell.exe'): string[] {
  return [powershell, '-NoProfile', '-NonInteractive', '-Command', windowsStartScript(pids)];
}

/** pid → `win32:<FILETIME>` for each of `pids` that is running. Never throws; bounded by `timeoutMs`. */
export function windowsProcessStarts(
  pids: readonly number[],
  options: StartQueryOptions = {},
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (pids.length === 0) return Promise.resolve(found);
  const [program, ...args] = windowsStartCommand(pids, options.powershell);
  return new Promise((resolve) => {
    let out = '';
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(program!, args, { stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true, shell: false });
    } catch {
      // Node throws, rather than emits, a spawn failure other than ENOENT, EACCES, EAGAIN, EMFILE and ENFILE
      // (libuv's UNKNOWN on Windows among them): unanswered, like a query that failed to start.
      resolve(found);
      return;
    }
    const timer = setTimeout(() => child.kill(), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (out.length < 1 << 20) out += chunk;
    });
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // Only whole lines: a query stopped by the bound may have been cut in the middle of one.
      for (const line of out.slice(0, out.lastIndexOf('\n') + 1).split(/\r?\n/)) {
        const m = /^\s*(\d+) (\d+)\s*$/.exec(line);
        if (m && pids.includes(Number(m[1]))) found.set(Number(m[1]), `win32:${m[2]}`);
      }
      resolve(found);
    };
    child.once('close', done);
    child.once('error', () => {
      out = '';
      done();
    });
  });
}

/** The start identity of one process on this platform, or undefined where none can be read. */
export async function processStartOf(
  pid: number | undefined,
  options: StartQueryOptions = {},
): Promise<string | undefined> {
  if (pid === undefined || pid <= 0) return undefined;
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return linuxProcessStart(pid);
  if (platform === 'win32') return (await windowsProcessStarts([pid], options)).get(pid);
  return undefined;
}
