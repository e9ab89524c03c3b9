/**
 * No test may reach the default address, 127.0.0.1:8791 (the `port` default in main/schema/config.ts): that is
 * where the user's own bridge listens, and it must be free to run while the tests do. So the run does not hold
 * the port; it watches its own processes instead: the global setup puts default-port-hook.cjs into
 * NODE_OPTIONS (`--require`, through a one-line preload that names the run's log), so every vitest worker and
 * every Node process a test starts refuses and records a connect to that address, and the teardown fails the
 * run when anything was recorded.
 *
 * What it cannot see: a process started without NODE_OPTIONS (a test that builds its env from nothing, an
 * agent the bridge starts with its filtered env, a program that is not Node).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const HOOK = path.join(import.meta.dirname, 'default-port-hook.cjs');

/**
 * The NODE_OPTIONS flag that loads the hook, recording to `log`: a preload written beside `log` that hands the
 * hook its log (a `--require` takes a file, no query), quoted as NODE_OPTIONS reads quotes, so a folder with
 * spaces or backslashes in its name stays one argument.
 */
export function defaultPortHook(log: string): string {
  const preload = `${log}.preload.cjs`;
  writeFileSync(preload, `require(${JSON.stringify(HOOK)}).guardConnects(${JSON.stringify(log)});\n`);
  return `--require ${JSON.stringify(preload)}`;
}

/** Every connection the hook recorded in `log`, one line each. */
export function recordedConnects(log: string): string[] {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Puts the hook into `env`'s NODE_OPTIONS (the run's own environment, which workers and the processes tests start
 * inherit) and returns the teardown: it restores NODE_OPTIONS and fails when anything was recorded.
 */
export function guardDefaultPort(env: NodeJS.ProcessEnv = process.env): () => Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'contactor-port-guard-'));
  const log = path.join(dir, 'connects.ndjson');
  writeFileSync(log, '');
  const before = env.NODE_OPTIONS;
  env.NODE_OPTIONS = [before, defaultPortHook(log)].filter(Boolean).join(' ');
  return async () => {
    const reached = recordedConnects(log);
    if (before === undefined) delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = before;
    rmSync(dir, { recursive: true, force: true });
    if (reached.length > 0)
      throw new Error(
        `${reached.length} connection(s) to the default address 127.0.0.1:8791 during the tests ` +
          `(a test must use its own config and port; each was refused):\n${reached.join('\n')}`,
      );
  };
}
