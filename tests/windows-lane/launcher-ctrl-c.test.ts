/**
 * Ctrl-C in a console, through resources\cli\contactor.exe (build/launcher/contactor.c), under
 * the Windows Node in Wine. Contactor.exe is a GUI program that never attaches to the console, so Windows sends
 * console control events to the launcher alone; the launcher forwards them to the CLI
 * (main/cli/console-events.ts), which must react as to a Ctrl-C on a POSIX terminal: `send` cancels its task,
 * says so and exits 130 (as tests/cli/interrupt.test.ts pins on Linux).
 *
 * The console: console-ctrl.exe (wine-only) gets one, runs the launcher on it and raises the event with
 * GenerateConsoleCtrlEvent once the test saw the CLI print its task id. Contactor.exe: gui-node.exe (wine-only),
 * a GUI program that runs node.exe off the console, as Electron's Node mode is (node.exe itself is a console
 * program, and Wine hands the console to GUI children too). The CLI is the real bundle, out/cli/contactor.cjs.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, fixtureAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { pollUntil } from '../helpers/wait.js';
import { bridgeEnv } from '../cli/run-cli.js';

const LAUNCHER = path.join(REPO_ROOT, 'out', 'launcher', 'contactor.exe');
const CLI_BUNDLE = path.join(REPO_ROOT, 'out', 'cli', 'contactor.cjs');
const TOOLS = process.env.CONTACTOR_LANE_TOOLS ?? '';
const READY =
  process.platform === 'win32' &&
  [LAUNCHER, CLI_BUNDLE, path.join(TOOLS, 'console-ctrl.exe'), path.join(TOOLS, 'gui-node.exe')].every(existsSync);

interface Pressed {
  code: number | null;
  stderr: string;
  id: string;
}

/** Runs `contactor <args>` on a console, presses `key` once the CLI printed `task <id>`, and waits for the end. */
function pressDuring(install: string, key: 'C' | 'B', args: string[], env: NodeJS.ProcessEnv): Promise<Pressed> {
  const go = path.join(install, `go-${key}`);
  const child = spawn(
    path.join(TOOLS, 'console-ctrl.exe'),
    [key, go, path.join(install, 'resources', 'cli', 'contactor.exe'), ...args],
    { env, windowsHide: true },
  );
  let stderr = '';
  let id = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    const match = /^task (\S+)$/m.exec(stderr);
    if (match && !id) {
      id = match[1]!;
      writeFileSync(go, '');
    }
  });
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, id }));
  });
}

describe.skipIf(!READY)('contactor.exe forwards Ctrl-C to the CLI', () => {
  let bridge: TestBridge;
  let install: string;
  beforeAll(async () => {
    bridge = await startTestBridge({ dir: tempDir(), agents: { sleepy: fixtureAgent('sleeper.mjs') } });
    install = mkdtempSync(path.join(tmpdir(), 'contactor-launcher-ctrl-'));
    mkdirSync(path.join(install, 'resources', 'cli'), { recursive: true });
    copyFileSync(path.join(TOOLS, 'gui-node.exe'), path.join(install, 'Contactor.exe'));
    copyFileSync(process.execPath, path.join(install, 'node.exe'));
    copyFileSync(LAUNCHER, path.join(install, 'resources', 'cli', 'contactor.exe'));
    copyFileSync(CLI_BUNDLE, path.join(install, 'resources', 'cli', 'contactor.cjs'));
  });
  afterAll(async () => {
    await bridge?.cleanup();
    if (install) rmSync(install, { recursive: true, force: true });
  });

  // Ctrl-Break cannot be shown here: Wine 8's GenerateConsoleCtrlEvent refuses CTRL_BREAK_EVENT
  // (ERROR_INVALID_HANDLE, whatever the group); the launcher sends it as 'B', which tests/cli/console-events pins.
  it('Ctrl-C during `send` cancels the task, says so and exits 130', async () => {
    const r = await pressDuring(install, 'C', ['send', 'sleepy', 'nap'], bridgeEnv(bridge));
    expect(r.id, r.stderr).not.toBe('');
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(`canceled task ${r.id}`);
    const state = await pollUntil(
      async () => ((await bridge.rpc('tasks/get', { id: r.id })).result as { status: { state: string } }).status.state,
      (s) => s === 'canceled',
      `task ${r.id} to be canceled`,
    );
    expect(state).toBe('canceled');
  }, 120_000);
});
