/**
 * Servers under test run in their own processes, so the client never shares a thread with them.
 * Their entry files are bundled once with esbuild (packages stay external): a child then starts like
 * a built product does, with no TypeScript loader in its startup time or its memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export const BENCH_DIR = path.resolve(import.meta.dirname, '..');
export const REPO_ROOT = path.resolve(BENCH_DIR, '..');

/**
 * Bundles `bench/servers/<name>.ts` files into `outDir/<name>.mjs`. The baselines keep their packages
 * in node_modules; contactor's servers are bundled the way the shipped CLI is (scripts/build.mjs,
 * "cli (repo)": dependencies inlined, only the native better-sqlite3 loaded from node_modules, split so
 * lazy imports stay lazy), since `contactor up` / `serve` start that build. `root`: the tree whose servers
 * are built (another commit's, for bench/ab.ts).
 */
export async function bundleServers(names: string[], outDir: string, root: string = REPO_ROOT): Promise<void> {
  const contactor = names.filter((n) => CONTACTOR_SERVERS.includes(n));
  const baselines = names.filter((n) => !CONTACTOR_SERVERS.includes(n));
  const entries = (list: string[]) =>
    Object.fromEntries(list.map((n) => [n, path.join(root, 'bench', 'servers', `${n}.ts`)]));
  const common = {
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'error',
  } as const;
  await Promise.all([
    baselines.length > 0 && build({ ...common, entryPoints: entries(baselines), packages: 'external' }),
    contactor.length > 0 &&
      build({
        ...common,
        entryPoints: entries(contactor),
        splitting: true,
        external: ['better-sqlite3', 'electron'],
        // Bundled CommonJS dependencies call require(), which an ES module does not have (as in the CLI build).
        banner: {
          js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);",
        },
      }),
  ]);
}

/** Servers built from contactor's own code (the durable ceiling uses its store, schema and gate). */
const CONTACTOR_SERVERS = ['contactor-echo', 'bridge-serve', 'durable-ceiling'];

export interface RunningChild<T> {
  process: ChildProcess;
  pid: number;
  /** The JSON line the child printed when ready. */
  info: T;
  /** ms from spawn to the ready line. */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns `node [nodeArgs] file args` and resolves on its first stdout line that is JSON with
 * `ready: true`. `BENCH_CPU_PROF=<dir>` adds --cpu-prof to every child (profiles are written on exit).
 */
export function startChild<T extends { ready: boolean }>(
  file: string,
  args: string[] = [],
  opts: { env?: Record<string, string | undefined>; timeoutMs?: number; nodeFlags?: readonly string[] } = {},
): Promise<RunningChild<T>> {
  const prof = process.env.BENCH_CPU_PROF;
  const nodeArgs = [...(opts.nodeFlags ?? []), ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [])];
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${path.basename(file)} did not get ready in time; stderr:\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(file)} exited with ${code} before it was ready; stderr:\n${stderr}`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        let info: T | undefined;
        try {
          info = JSON.parse(line) as T;
        } catch {
          continue;
        }
        if (info?.ready) {
          clearTimeout(timer);
          resolve({ process: child, pid: child.pid!, info, readyMs: performance.now() - started, stop });
        }
      }
    });
  });
}

/** Resident set size of a process in MB, from /proc (Linux); undefined elsewhere. */
export function rssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bytes a process has handed to write calls so far (`wchar` of /proc/<pid>/io, Linux; every thread, every
 * file and socket), undefined elsewhere. For the bridge: its SQLite files (WAL frames, the checkpoint's copy)
 * and its HTTP responses.
 */
export function writtenBytes(pid: number): number | undefined {
  try {
    const wchar = /^wchar:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
    return wchar === undefined ? undefined : Number(wchar);
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); undefined elsewhere. */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3) after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
