/**
 * Ctrl-C in a real Windows console, run by .github/workflows/windows.yml after the silent install (`npx tsx
 * tests/windows-runner/ctrl-c-conpty.ts <install dir>`). It cannot run here (no ConPTY); `npm run check`
 * type-checks and lints it.
 *
 * The installed `contactor.exe serve` (the launcher, build/launcher/contactor.c, and the Contactor.exe in Node mode
 * it starts) runs in a pseudo console: @lydell/node-pty on Windows is ConPTY (CreatePseudoConsole), so the
 * processes share a console as they do in Windows Terminal. Typing Ctrl-C there (ETX, 0x03, which ConPTY turns
 * into CTRL_C_EVENT for every process attached to the console) must:
 * - end the launcher, and so return the prompt, within a bound;
 * - leave no Contactor.exe of this run behind (the launcher's job object, and the CLI's own SIGINT handling);
 * - let the bridge stop cleanly: its discovery file (bridge.json in the data dir) is gone.
 * A dedicated port and data dir, so the bridge of the other steps is not touched.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { spawn } from '@lydell/node-pty';

/** Generous: the first start of the installed exe on a hosted runner (Defender scans it) is slow. */
const START_TIMEOUT_MS = 120_000;
/** Ctrl-C must end it promptly: the bridge stops its (idle) agents and closes the store. */
const STOP_TIMEOUT_MS = 30_000;
const PORT = 18_941;

const install = process.argv[2];
if (!install) throw new Error('usage: tsx tests/windows-runner/ctrl-c-conpty.ts <install dir>');
const launcher = path.join(install, 'resources', 'cli', 'contactor.exe');
assert.ok(existsSync(launcher), `no launcher at ${launcher}`);

const dir = mkdtempSync(path.join(tmpdir(), 'contactor-ctrl-c-'));
const dataDir = path.join(dir, 'data');
const config = path.join(dir, 'config.yaml');
writeFileSync(
  config,
  [
    `port: ${PORT}`,
    `data_dir: '${dataDir}'`,
    'agents:',
    '  echo:',
    '    kind: subprocess_cli',
    "    command: ['${CONTACTOR_NODE}', '${CONTACTOR_RESOURCES}/agents/echo-agent.mjs']",
    '',
  ].join('\n'),
);

/** Command lines of every Contactor.exe still running with this run's config. */
function leftovers(): string[] {
  const out = execFileSync(
    'powershell.exe',
    [
      '-NoProfile',
      '-Command',
      'Get-CimInstance Win32_Process -Filter "Name=\'Contactor.exe\'" | ForEach-Object { $_.CommandLine }',
    ],
    { encoding: 'utf8' },
  );
  return out.split(/\r?\n/).filter((line) => line.includes(config));
}

async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const pty = spawn(launcher, ['serve', '-c', config], {
  name: 'xterm-256color',
  cols: 120,
  rows: 30,
  cwd: dir,
  env: { ...process.env } as Record<string, string>,
});
let screen = '';
const up = new Promise<void>((resolve) =>
  pty.onData((data) => {
    screen += data;
    // ConPTY re-renders the screen with VT sequences of its own: match the text without them.
    if (stripVTControlCharacters(screen).includes(`bridge on http://127.0.0.1:${PORT}`)) resolve();
  }),
);
const exited = new Promise<{ exitCode: number }>((resolve) => pty.onExit(resolve));

try {
  await within('the bridge to start (`contactor bridge on …`)', START_TIMEOUT_MS, up);
  assert.ok(existsSync(path.join(dataDir, 'bridge.json')), 'the bridge wrote no discovery file');
  const pressed = Date.now();
  pty.write('\x03');
  const { exitCode } = await within('contactor.exe to exit after Ctrl-C', STOP_TIMEOUT_MS, exited);
  console.log(`Ctrl-C: contactor.exe exited ${exitCode} after ${Date.now() - pressed} ms`);
  assert.deepEqual(leftovers(), [], 'a Contactor.exe of this run outlived Ctrl-C');
  assert.ok(!existsSync(path.join(dataDir, 'bridge.json')), 'the bridge did not stop cleanly: bridge.json is left');
} catch (err) {
  console.error(`what the console showed:\n${screen}`);
  pty.kill();
  throw err;
}
