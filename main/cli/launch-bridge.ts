/**
 * Starting a bridge in the background for `up` and `stdio`: reuse one that answers, else start
 * `contactor serve` detached with its output in the data dir, and wait until it is healthy.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { BridgeClient } from './bridge-client.js';
import { CliError, EXIT } from './exit-codes.js';
import { cliEntry, resourcesDir } from './install-paths.js';
import { locateBridge, readDiscovery, type BridgeAddress } from './locate.js';
import type { GlobalOptions } from './settings.js';

export const SERVE_LOG = 'serve.log';
const START_TIMEOUT_MS = 15_000;

export type LaunchMode = 'headless' | 'desktop';

/**
 * Where `up` starts the bridge (CONTRACT.md "CLI": the desktop app where it is installed, else headless).
 * TODO(desktop issue): on Windows, find the installed tray app (%LOCALAPPDATA%\Programs\contactor) and
 * return 'desktop' so `up` starts it instead; until the app exists every platform runs headless.
 */
export function chooseLaunchMode(
  opts: { headless?: boolean },
  _platform: NodeJS.Platform = process.platform,
): LaunchMode {
  if (opts.headless) return 'headless';
  return 'headless';
}

export interface Ensured {
  address: BridgeAddress;
  started: boolean;
  pid?: number;
  log?: string;
}

export async function ensureBridge(
  opts: GlobalOptions & { headless?: boolean },
  env: NodeJS.ProcessEnv,
): Promise<Ensured> {
  const current = locateBridge(opts, env);
  if (await new BridgeClient(current).health()) return { address: current, started: false };
  if (env.CONTACTOR_URL) {
    throw new CliError(
      `no bridge answers at CONTACTOR_URL=${current.url}; unset it to start a local bridge, or start the one it names`,
      EXIT.unreachable,
    );
  }
  let dataDir: string;
  try {
    const loaded = loadConfig({
      ...(opts.config ? { configPath: opts.config } : {}),
      env,
      resourcesDir: resourcesDir(),
      nodePath: process.execPath,
    });
    dataDir = opts.dataDir ? path.resolve(opts.dataDir) : loaded.dataDir;
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n  fix it, then \`contactor config check\``, EXIT.usage);
  }
  if (chooseLaunchMode(opts) === 'desktop')
    throw new CliError('starting the desktop app is not implemented yet; use --headless', EXIT.usage);
  return startHeadless(opts, env, dataDir);
}

async function startHeadless(opts: GlobalOptions, env: NodeJS.ProcessEnv, dataDir: string): Promise<Ensured> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const log = path.join(dataDir, SERVE_LOG);
  const fd = openSync(log, 'a', 0o600);
  const args = [
    cliEntry(),
    'serve',
    ...(opts.config ? ['--config', path.resolve(opts.config)] : []),
    ...(opts.dataDir ? ['--data-dir', dataDir] : []),
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env, windowsHide: true });
  closeSync(fd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', () => (exited = -1));
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited !== undefined)
        throw new CliError(`the bridge did not start: ${lastLines(log)}\n  full log: ${log}`, EXIT.usage);
      const discovery = readDiscovery(dataDir);
      if (discovery?.pid === child.pid) {
        const address = locateBridge({ ...opts, dataDir }, { ...env, CONTACTOR_URL: '' });
        if (await new BridgeClient(address).health())
          return { address, started: true, ...(child.pid ? { pid: child.pid } : {}), log };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGTERM');
    throw new CliError(
      `the bridge did not become healthy within ${START_TIMEOUT_MS / 1000}s; see ${log}`,
      EXIT.unreachable,
    );
  } finally {
    child.unref();
  }
}

function lastLines(file: string): string {
  try {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    return lines.slice(-3).join('\n  ');
  } catch {
    return '(no log)';
  }
}
