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
import { REPO_ROOT } from '../helpers/bridge.js';

const LAYOUT = process.env.CONTACTOR_LANE_LAYOUT ?? '';
const LAUNCHER = path.join(REPO_ROOT, 'out', 'launcher', 'contactor.exe');
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const PROBE = `const fs = require('node:fs');
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
