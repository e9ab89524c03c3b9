/**
 * resources\cli\contactor.exe (build/launcher/contactor.c) under the Windows Node in Wine: started the way Node
 * (`child_process.spawn`, libuv's MSVCRT quoting; PowerShell 7.3+ quotes the same way) and cmd.exe start programs,
 * it must hand every argument to the CLI exactly as given — no batch file re-parsing: a multi-line argument stays
 * whole, `%PATH%` is not expanded, `R&D` is not split, quotes and unicode survive — with ELECTRON_RUN_AS_NODE set,
 * stdin/stdout/stderr passed through and the exit code kept.
 *
 * The stand-in install: the Windows node.exe as Contactor.exe (Electron in Node mode is Node) and a probe as
 * contactor.cjs that reports what reached it. The lane's --dir layout (CONTACTOR_LANE_LAYOUT) gives the real one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../fixtures/cli/processes.js';
import { REPO_ROOT } from '../helpers/bridge.js';
import { eventually, pollUntil } from '../helpers/wait.js';

const LAYOUT = process.env.CONTACTOR_LANE_LAYOUT ?? '';
const LAUNCHER = path.join(REPO_ROOT, 'out', 'launcher', 'contactor.exe');
/** The lane's Wine-only stand-ins (tests/windows-lane/wine-only), built by wine.mjs. */
const TOOLS = process.env.CONTACTOR_LANE_TOOLS ?? '';
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// PROBE_SPAWN: as `contactor up` starts the bridge (spawn with detached: true, libuv's UV_PROCESS_DETACHED), it
// starts a detached child that writes its pid into the second file once the first exists, and a child started
// without detached that just waits; it prints both pids and ends at once.
const PROBE = `const fs = require('node:fs');
if (process.env.PROBE_SPAWN) {
  const { spawn } = require('node:child_process');
  const [go, alive] = JSON.parse(process.env.PROBE_SPAWN);
  const waitForGo = 'const fs = require("node:fs"); const go = ' + JSON.stringify(go) + '; const alive = ' + JSON.stringify(alive) +
    '; const t = setInterval(() => { if (fs.existsSync(go)) { fs.writeFileSync(alive, String(process.pid)); clearInterval(t); } }, 25);';
  const options = { stdio: 'ignore', windowsHide: true };
  const detached = spawn(process.execPath, ['-e', waitForGo], { ...options, detached: true });
  const attached = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], options);
  detached.unref();
  attached.unref();
  process.stdout.write(JSON.stringify({ detached: detached.pid, attached: attached.pid }));
  return;
}
const stdin = process.env.PROBE_STDIN ? fs.readFileSync(0, 'utf8') : undefined;
process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), runAsNode: process.env.ELECTRON_RUN_AS_NODE, stdin }));
process.stderr.write('to stderr');
process.exitCode = Number(process.env.PROBE_EXIT ?? 0);
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  program: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; verbatim?: boolean } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      env: { ...process.env, ...opts.env },
      windowsHide: true,
      windowsVerbatimArguments: opts.verbatim ?? false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

const HARD = ['a\nb', '%PATH%', 'R&D', '"quoted"', 'say "hi" \\', 'ünïcödé ✓ 😀', 'a|b<c>d^e', '', '  spaced  '];

describe.skipIf(process.platform !== 'win32' || !existsSync(LAUNCHER))('contactor.exe, the CLI launcher', () => {
  let install: string;
  let launcher: string;
  beforeAll(() => {
    install = mkdtempSync(path.join(tmpdir(), 'contactor-launcher-'));
    mkdirSync(path.join(install, 'resources', 'cli'), { recursive: true });
    // A copy, not a hard link: a link shares the file of the running node.exe, which Windows will not delete.
    copyFileSync(process.execPath, path.join(install, 'Contactor.exe'));
    launcher = path.join(install, 'resources', 'cli', 'contactor.exe');
    copyFileSync(LAUNCHER, launcher);
    writeFileSync(path.join(install, 'resources', 'cli', 'contactor.cjs'), PROBE);
  });
  afterAll(() => {
    if (install) rmSync(install, { recursive: true, force: true });
  });

  it('started as Node starts programs, every hard argument reaches the CLI as given, in Node mode', async () => {
    const r = await run(launcher, HARD);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ argv: HARD, runAsNode: '1' });
    expect(r.stderr).toBe('to stderr');
  }, 120_000);

  it('keeps the exit code and passes stdin through', async () => {
    const input = `line 1\nünï 😀\n${'x'.repeat(100_000)}\n`;
    const r = await run(launcher, ['send'], { env: { PROBE_EXIT: '3', PROBE_STDIN: '1' }, input });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ argv: ['send'], stdin: input });
    expect((await run(launcher, [], { env: { PROBE_EXIT: '0' } })).code).toBe(0);
  }, 120_000);

  it('from cmd.exe: a quoted & and a %% stay literal; cmd does its own parsing, the launcher adds none', async () => {
    // cmd /d /s /c ""<launcher>" "R&D" "x y"": cmd strips the outer quotes and runs the rest as typed.
    const line = `/d /s /c ""${launcher}" "R&D" "x y" plain"`;
    const r = await run(process.env.ComSpec ?? 'cmd.exe', [line], { verbatim: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).argv).toEqual(['R&D', 'x y', 'plain']);
  }, 120_000);

  it('names the exe it cannot start, exit 2', async () => {
    const lonely = mkdtempSync(path.join(tmpdir(), 'contactor-launcher-'));
    try {
      mkdirSync(path.join(lonely, 'resources', 'cli'), { recursive: true });
      copyFileSync(LAUNCHER, path.join(lonely, 'resources', 'cli', 'contactor.exe'));
      const r = await run(path.join(lonely, 'resources', 'cli', 'contactor.exe'), ['--version']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot start ${path.join(lonely, 'Contactor.exe')}`);
    } finally {
      rmSync(lonely, { recursive: true, force: true });
    }
  }, 120_000);

  it('a child the CLI starts detached (the bridge of `contactor up`) outlives the launcher; any other ends with the CLI', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-launcher-spawn-'));
    try {
      const go = path.join(dir, 'go');
      const alive = path.join(dir, 'alive');
      const r = await run(launcher, ['up'], { env: { PROBE_SPAWN: JSON.stringify([go, alive]) } });
      expect(r.code).toBe(0);
      const { detached, attached } = JSON.parse(r.stdout) as { detached: number; attached: number };
      // The launcher has ended (its stdout closed): only now may the detached child speak.
      writeFileSync(go, '');
      const outcome = await pollUntil(
        () => (existsSync(alive) ? 'wrote its file' : isRunning(detached) ? undefined : 'ended without writing'),
        (seen) => seen !== undefined,
        'the detached child to write its file, or to end',
      );
      expect(outcome).toBe('wrote its file');
      expect(readFileSync(alive, 'utf8')).toBe(String(detached));
      await eventually(() => !isRunning(attached), 'the non-detached child to end with the CLI');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!existsSync(path.join(TOOLS, 'argv-echo.exe')))(
    '`""` inside quotes reaches the CLI as CommandLineToArgvW splits it (Electron), not as the C runtime would',
    async () => {
      // cmd.exe passes what was typed as is; so does the launcher. `"a""b c" plain`: CommandLineToArgvW reads the
      // `""` inside quotes as one literal quote that also closes the quoted part, so `c` starts unquoted and its
      // closing quote opens a part that runs to the end (Wine dlls/shell32/shell32_main.c, CommandLineToArgvW:
      // "in quoted strings, consecutive quotes see their number divided by three ... 3n+2 quotes -> n+1 quotes
      // plus closes the quoted string"). The C runtime since VC 2008 keeps the part open: `a"b c` and `plain`.
      const tail = '"a""b c" plain';
      const electron = mkdtempSync(path.join(tmpdir(), 'contactor-launcher-argv-'));
      try {
        mkdirSync(path.join(electron, 'resources', 'cli'), { recursive: true });
        copyFileSync(path.join(TOOLS, 'argv-echo.exe'), path.join(electron, 'Contactor.exe'));
        copyFileSync(LAUNCHER, path.join(electron, 'resources', 'cli', 'contactor.exe'));
        const viaElectron = await run(path.join(electron, 'resources', 'cli', 'contactor.exe'), [tail], {
          verbatim: true,
        });
        expect(viaElectron.code).toBe(0);
        expect(viaElectron.stdout.split('\0').slice(0, -1)).toEqual(['a"b', 'c plain']);
      } finally {
        rmSync(electron, { recursive: true, force: true });
      }
      // The same tail through node.exe as Contactor.exe (the C runtime's parser): the two differ.
      const viaNode = await run(launcher, [tail], { verbatim: true });
      expect(JSON.parse(viaNode.stdout).argv).toEqual(['a"b c', 'plain']);
    },
    120_000,
  );

  it.skipIf(!existsSync(path.join(LAYOUT, 'resources', 'cli', 'contactor.exe')))(
    'in the --dir layout it runs the real bundled CLI',
    async () => {
      const r = spawnSync(path.join(LAYOUT, 'resources', 'cli', 'contactor.exe'), ['--version'], {
        encoding: 'utf8',
        windowsHide: true,
      });
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toContain(VERSION);
    },
    120_000,
  );
});
