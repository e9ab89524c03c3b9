/**
 * Runs the real `contactor` (bin/contactor.js → out/cli/contactor.mjs) as a child process. Asynchronous on
 * purpose: the bridge under test runs in this process, so a blocking spawn would dead-lock it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

export const CLI = path.join(REPO_ROOT, 'bin', 'contactor.js');

/**
 * A Node older than 22.14 on this machine (the system Node 20 here), on which bin/contactor.js relaunches the
 * CLI on the pinned Node; undefined where there is none (tests that need it are skipped).
 */
export function findOldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const [major = 0, minor = 0] = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' })
        .trim()
        .split('.')
        .map(Number);
      if (major < 22 || (major === 22 && minor < 14)) return candidate;
    } catch {
      // not installed here
    }
  }
  return undefined;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as the one JSON document a --json run prints. */
  json<T = Record<string, unknown>>(): T;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** Another build of the CLI to run (default bin/contactor.js). */
  entry?: string;
  /** The working directory (default this process's). */
  cwd?: string;
}

/**
 * An environment with nothing inherited from the machine or the agent running these tests. The default
 * locations point into `home` on every platform (XDG on Linux, %APPDATA% / %LOCALAPPDATA% / %USERPROFILE% on
 * Windows). NODE_OPTIONS is kept: it is how the Windows lane loads its Wine-only preload into every Node.
 */
export function cleanEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    ...(process.platform === 'win32'
      ? {
          USERPROFILE: home,
          APPDATA: path.join(home, '.config'),
          LOCALAPPDATA: path.join(home, '.local', 'state'),
          SYSTEMROOT: process.env.SYSTEMROOT,
        }
      : {}),
    NODE_OPTIONS: process.env.NODE_OPTIONS,
    NO_COLOR: '1',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Where the CLI under cleanEnv(home) finds its default config: %USERPROFILE%\\.contactor on Windows, else XDG. */
export function defaultConfigIn(home: string): string {
  return process.platform === 'win32'
    ? path.join(home, '.contactor', 'config.yaml')
    : path.join(home, '.config', 'contactor', 'config.yaml');
}

/** The test bridge's temp folder (its config sits there; removed by cleanup()): room for test files. */
export function workDir(bridge: TestBridge): string {
  return path.dirname(bridge.configPath);
}

/** A CLI agent running one of tests/cli/fixtures/*.mjs with the Node running the tests. */
export function cliFixtureAgent(file: string, args: string[] = []): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.join(REPO_ROOT, 'tests', 'cli', 'fixtures', file), ...args],
    timeout_s: TEST_TIMEOUT_MS / 1000,
  };
}

/** CONTACTOR_URL + CONTACTOR_TOKEN for `bridge`, with a fresh HOME. */
export function bridgeEnv(bridge: TestBridge, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv(mkdtempSync(path.join(workDir(bridge), 'home-')), {
    CONTACTOR_URL: bridge.url,
    CONTACTOR_TOKEN: bridge.token,
    ...extra,
  });
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return startCli(args, opts).done;
}

/** A CLI run still going: a test can wait for what it prints and signal it (Ctrl-C) meanwhile. */
export interface RunningCli {
  child: ChildProcess;
  /** Resolves with the first match of `pattern` in stderr, as soon as it is printed. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** The same in stdout. */
  stdoutMatch(pattern: RegExp): Promise<RegExpExecArray>;
  done: Promise<CliRun>;
}

export function startCli(args: string[], opts: CliOptions = {}): RunningCli {
  const env = opts.env
    ? (opts.env as NodeJS.ProcessEnv)
    : cleanEnv(mkdtempSync(path.join(tmpdir(), 'contactor-home-')));
  const child = spawn(process.execPath, [opts.entry ?? CLI, ...args], {
    env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  let closed = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const check of watchers) check();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const check of watchers) check();
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    // Never before the test's own timeout: only a CLI that outlives its test is killed.
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? TEST_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      closed = true;
      for (const check of watchers) check();
      resolve({
        code,
        stdout,
        stderr,
        json<T>() {
          return JSON.parse(stdout) as T;
        },
      });
    });
  });
  const match = (stream: 'stdout' | 'stderr', pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(stream === 'stdout' ? stdout : stderr);
        if (found) {
          watchers.delete(check);
          resolve(found);
        } else if (closed) {
          watchers.delete(check);
          reject(
            new Error(`the CLI ended without printing ${pattern} on ${stream}; stdout: ${stdout}; stderr: ${stderr}`),
          );
        }
      };
      watchers.add(check);
      check();
    });
  child.stdin.end(opts.input ?? '');
  return {
    child,
    stderrMatch: (pattern) => match('stderr', pattern),
    stdoutMatch: (pattern) => match('stdout', pattern),
    done,
  };
}

/** A port nothing listens on (bound, noted, closed): for "unreachable" and for `up` to take. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
