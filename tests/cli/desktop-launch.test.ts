/**
 * `up` starting the desktop app (launch-bridge.ts `startBridge` with a desktop choice), against a stand-in
 * Contactor.exe that hosts a real bridge as its child: started detached with `--hidden` and without
 * ELECTRON_RUN_AS_NODE, and `up` waits for that bridge's /health although its pid is not the app's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CliError } from '../../main/cli/exit-codes.js';
import { startBridge } from '../../main/cli/bridge-client/launch-bridge.js';
import { chooseLaunch } from '../../main/cli/bridge-client/launch-mode.js';
import { isAlive } from '../../main/cli/bridge-client/pid.js';
import { CLI, cleanEnv } from './run-cli.js';
import { executable, PROBE_FIXTURES } from './stand-ins.js';

let dir: string;
let started: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-desktop-'));
  started = [];
});
afterEach(async () => {
  for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
  for (const pid of started) while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  rmSync(dir, { recursive: true, force: true });
});

function desktopChoice(extraEnv: Record<string, string> = {}) {
  const exe = executable(
    path.join(dir, 'Programs', 'contactor', 'Contactor.exe'),
    readFileSync(path.join(PROBE_FIXTURES, 'fake-app.js'), 'utf8'),
  );
  const config = path.join(dir, 'config.yaml');
  const dataDir = path.join(dir, 'data');
  writeFileSync(config, stringify({ port: 0, data_dir: dataDir, agents: {} }));
  const env = {
    ...cleanEnv(dir),
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    ELECTRON_RUN_AS_NODE: '1',
    FAKE_APP_RECORD: path.join(dir, 'record.json'),
    FAKE_APP_NODE: process.execPath,
    FAKE_APP_CLI: CLI,
    ...extraEnv,
  };
  // What chooseLaunch gives on Windows for a per-user install, with this stand-in in its place.
  const choice = chooseLaunch({
    platform: 'win32',
    env: { ...env, LOCALAPPDATA: 'C:\\L' },
    execPath: process.execPath,
    exists: (f) => f === 'C:\\L\\Programs\\contactor\\Contactor.exe',
    configPath: config,
    serveArgs: [],
  });
  return { choice: { ...choice, command: exe }, config, dataDir };
}

describe('startBridge, desktop', () => {
  it('starts the app hidden without ELECTRON_RUN_AS_NODE and returns once the bridge it hosts answers', async () => {
    const { choice, config, dataDir } = desktopChoice();
    expect(choice.mode).toBe('desktop');
    const ensured = await startBridge(choice, { config }, dataDir);
    started.push(ensured.pid!);
    expect(ensured).toMatchObject({ started: true, mode: 'desktop', log: path.join(dataDir, 'logs') });
    expect(ensured.address.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const record = JSON.parse(readFileSync(path.join(dir, 'record.json'), 'utf8')) as {
      argv: string[];
      runAsNode: string | null;
    };
    expect(record).toEqual({ argv: ['--hidden'], runAsNode: null });
    const health = await fetch(`${ensured.address.url}/health`);
    expect(health.status).toBe(200);
  });

  it('an app that exits with an error before its bridge answers: exit 2 naming the app and --headless', async () => {
    const { choice, config, dataDir } = desktopChoice({ FAKE_APP_EXIT: '3' });
    const failure = await startBridge(choice, { config }, dataDir).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as CliError).exitCode).toBe(2);
    expect((failure as CliError).message).toContain('exited with code 3 before its bridge answered');
    expect((failure as CliError).message).toContain('contactor up --headless');
  });
});
