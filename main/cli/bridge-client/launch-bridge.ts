/**
 * Starting a bridge in the background for `up` and `stdio`: reuse one that answers, else start what
 * launch-mode.ts chooses (the tray app on Windows, else `contactor serve`) detached, and wait until it is healthy.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../config/config.js';
import { openOwnFileForAppend } from '../../platform/protected-files.js';
import { BridgeClient, portInUse, probeAddress } from './bridge-client.js';
import { CliError, EXIT } from '../exit-codes.js';
import { cliEntry, resourcesDir } from '../install-paths.js';
import { chooseLaunch, type LaunchChoice } from './launch-mode.js';
import { headlessNodeFlags } from './node-flags.js';
import { foreignBridge, isOwnBridge } from './foreign-bridge.js';
import { locateBridge, readDiscovery, type BridgeAddress } from './locate.js';
import { bridgeOfLockHolder } from './lock-holder.js';
import { isAlive } from './pid.js';
import { rotateIfOver } from '../../platform/log-rotation.js';
import { reportConfigMove, type GlobalOptions } from '../settings.js';

export const SERVE_LOG = 'serve.log';
/** serve.log rotates at a start that finds it past this size (platform/log-rotation.ts); two older files kept. */
export const SERVE_LOG_MAX_BYTES = 1024 * 1024;
export const SERVE_LOG_KEEP = 2;
const START_TIMEOUT_MS = 15_000;
/** Electron's first start (and Windows Defender's first scan of a fresh install) is slow. */
const DESKTOP_START_TIMEOUT_MS = 45_000;

export interface Ensured {
  address: BridgeAddress;
  started: boolean;
  /** What was started: the tray app, or a headless bridge. */
  mode?: LaunchChoice['mode'];
  pid?: number;
  log?: string;
  /** The default config this `up` wrote (the first start). */
  configCreated?: string;
}

export async function ensureBridge(
  opts: GlobalOptions & { headless?: boolean; port?: number },
  env: NodeJS.ProcessEnv,
  /** Told as soon as the default config is written, before anything may refuse to start. */
  onConfigCreated?: (file: string) => void,
): Promise<Ensured> {
  if (env.CONTACTOR_URL) {
    const named = locateBridge(opts, env);
    const health = await new BridgeClient(named).health();
    if (health) return { address: named, started: false, pid: health.pid };
    throw new CliError(
      `no bridge answers at CONTACTOR_URL=${named.url}; unset it to start a local bridge, or start the one it names`,
      EXIT.unreachable,
    );
  }
  // The config first, before anything is probed: a broken one must not be papered over by whichever
  // bridge happens to answer (the default address, or the last good config's bridge).
  let dataDir: string;
  let listen: { host: string; port: number };
  let configCreated: string | undefined;
  try {
    const loaded = loadConfig({
      ...(opts.config ? { configPath: opts.config } : {}),
      env,
      resourcesDir: resourcesDir(),
      nodePath: process.execPath,
    });
    dataDir = opts.dataDir ? path.resolve(opts.dataDir) : loaded.dataDir;
    listen = { host: loaded.config.host, port: opts.port ?? loaded.config.port };
    if (loaded.created) configCreated = loaded.path;
    if (loaded.moved) reportConfigMove(loaded.moved);
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n  fix it, then \`contactor config check\``, EXIT.usage);
  }
  if (configCreated) onConfigCreated?.(configCreated);
  // Reused only when this data dir's discovery file names the bridge that answers: a bridge another HOME,
  // config or data dir started holds a token this CLI does not have.
  const current = locateBridge(opts, env);
  const health = current.discovery ? await new BridgeClient(current).health() : undefined;
  if (health && isOwnBridge(current.discovery, health)) {
    const port = current.discovery!.port;
    if (opts.port !== undefined && opts.port !== 0 && opts.port !== port)
      throw new CliError(
        `this config's bridge already runs at ${current.url} (pid ${health.pid}), not on port ${opts.port}; to move it: \`contactor down\`, then \`contactor up --port ${opts.port}\``,
        EXIT.usage,
      );
    return { address: current, started: false, pid: health.pid };
  }
  // Said before starting anything: a bridge that cannot bind would only leave the same words in its log.
  if (listen.port !== 0) {
    const url = `http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
    const found = await probeAddress(url);
    if (found.kind === 'other') throw portInUse(url, found.detail, EXIT.usage);
    if (found.kind === 'bridge') {
      // Another `up` on this data dir started it a moment ago and has not written the discovery file yet.
      const starting = await bridgeOfLockHolder(opts, dataDir, Date.now() + START_TIMEOUT_MS);
      if (starting?.pid === found.health.pid) return { address: starting.address, started: false, pid: starting.pid };
      throw foreignBridge(url, found.health, dataDir);
    }
  }
  const choice = chooseLaunch({
    platform: process.platform,
    env,
    execPath: process.execPath,
    exists: existsSync,
    ...(opts.headless ? { headless: true } : {}),
    ...(opts.dataDir ? { dataDirFlag: true } : {}),
    ...(opts.port !== undefined ? { portFlag: true } : {}),
    ...(opts.config ? { configPath: path.resolve(opts.config) } : {}),
    serveArgs: [
      ...headlessNodeFlags(),
      cliEntry(),
      'serve',
      // serve.log is not a task log: the background bridge keeps the lines a person watches `serve` for out of it.
      '--quiet',
      ...(opts.port !== undefined ? ['--port', String(opts.port)] : []),
      ...(opts.config ? ['--config', path.resolve(opts.config)] : []),
      ...(opts.dataDir ? ['--data-dir', dataDir] : []),
    ],
  });
  const started = await startBridge(choice, opts, dataDir);
  return configCreated ? { ...started, configCreated } : started;
}

/**
 * Starts what `chooseLaunch` chose, detached, and waits until the bridge it hosts answers /health on the
 * data dir's discovery file. A headless bridge must be the very process started (its pid is in the file);
 * the tray app may hand over to an instance already running, so any live bridge on the data dir counts.
 */
export async function startBridge(choice: LaunchChoice, opts: GlobalOptions, dataDir: string): Promise<Ensured> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const desktop = choice.mode === 'desktop';
  const log = desktop ? path.join(dataDir, 'logs') : path.join(dataDir, SERVE_LOG);
  // The detached bridge writes serve.log for its whole life (its stdout and stderr), so it is bounded at each
  // start, rotated as the other logs are; `--quiet` keeps what a running bridge writes there to warnings.
  if (!desktop) rotateIfOver(log, SERVE_LOG_MAX_BYTES, SERVE_LOG_KEEP);
  // Never through a link an agent planted in the data dir (SECURITY.md#what-the-bridge-guarantees).
  const fd = desktop ? 'ignore' : openOwnFileForAppend(dataDir, log);
  // serve.log is appended to across starts: a failure quotes only what this start wrote.
  const logStart = typeof fd === 'number' ? fstatSync(fd).size : 0;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(choice.command, choice.args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: choice.env,
      windowsHide: !desktop,
    });
  } finally {
    // Also when Node throws the spawn failure (any but ENOENT, EACCES, EAGAIN, EMFILE and ENFILE).
    if (typeof fd === 'number') closeSync(fd);
  }
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', () => (exited = -1));
  const timeoutMs = desktop ? DESKTOP_START_TIMEOUT_MS : START_TIMEOUT_MS;
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // A second app instance exits 0 after handing over to the first: keep waiting for that one's bridge.
      if (exited !== undefined && !(desktop && exited === 0)) {
        // Lost the race for the data dir to another `up`: that one's bridge is the answer.
        const winner = desktop ? undefined : await bridgeOfLockHolder(opts, dataDir, deadline);
        if (winner) return { address: winner.address, started: false, pid: winner.pid };
        throw startFailed(choice, exited, log, logStart);
      }
      const discovery = readDiscovery(dataDir);
      if (discovery && (desktop ? isAlive(discovery.pid) : discovery.pid === child.pid)) {
        const address = locateBridge({ ...opts, dataDir }, { ...choice.env, CONTACTOR_URL: '' });
        if (await new BridgeClient(address).health())
          return { address, started: true, mode: choice.mode, pid: discovery.pid, log };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!desktop) child.kill('SIGTERM');
    throw new CliError(
      desktop
        ? `${choice.reason} started, but its bridge did not answer within ${timeoutMs / 1000}s: if the tray icon is red, its menu says why; logs in ${log}`
        : `the bridge did not become healthy within ${timeoutMs / 1000}s; see ${log}`,
      EXIT.unreachable,
    );
  } finally {
    child.unref();
  }
}

function startFailed(choice: LaunchChoice, code: number | null, log: string, logStart: number): CliError {
  if (choice.mode === 'desktop')
    return new CliError(
      `${choice.reason} exited${code === -1 ? ' (could not be started)' : ` with code ${code}`} before its bridge answered; logs in ${log}, or try \`contactor up --headless\``,
      EXIT.usage,
    );
  return new CliError(`the bridge did not start: ${lastLines(log, logStart)}\n  full log: ${log}`, EXIT.usage);
}

function lastLines(file: string, from: number): string {
  try {
    const written = readFileSync(file).subarray(from).toString('utf8').trimEnd();
    return written ? written.split('\n').slice(-3).join('\n  ') : '(it wrote nothing to its log)';
  } catch {
    return '(no log)';
  }
}
