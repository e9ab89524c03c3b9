/**
 * `scan` across the WSL boundary, with stand-ins on PATH run for real: from WSL, the Windows side through
 * cmd.exe, wslpath and where.exe (C: is a temp folder); from Windows, each distro through wsl.exe (each
 * distro's PATH is a temp folder). Then the config entries proposed for what was found.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../main/cli/command-runner.js';
import { KNOWN_AGENTS } from '../../main/cli/scan/known-agents.js';
import { propose, shellWord } from '../../main/cli/scan/scan-proposal.js';
import { scanWindowsFromWsl } from '../../main/cli/scan/windows-scan.js';
import { scanWslDistros, sightingsIn } from '../../main/cli/wsl/wsl-scan.js';
import { AgentConfigSchema } from '../../main/schema/config.js';
import { executable, makeStandIns, type StandIns } from './stand-ins.js';

const PROGRAMS = KNOWN_AGENTS.map((k) => k.program);
const known = (program: string) => KNOWN_AGENTS.find((k) => k.program === program)!;

let standIns: StandIns;
let mnt: string;
let driveC: string;
beforeAll(() => {
  standIns = makeStandIns();
  mnt = path.join(standIns.dir, 'mnt');
  driveC = path.join(mnt, 'c');
  mkdirSync(driveC, { recursive: true });
});
afterAll(() => standIns.cleanup());

describe('scanWindowsFromWsl', () => {
  function windowsEnv(whereDir: string): NodeJS.ProcessEnv {
    return {
      PATH: standIns.path('cmd.exe', 'where.exe', 'wslpath'),
      FAKE_WSL_ROOT: mnt,
      FAKE_APPDATA: 'C:\\Users\\Zoë\\AppData\\Roaming',
      FAKE_LOCALAPPDATA: 'C:\\Users\\Zoë\\AppData\\Local',
      FAKE_WHERE_DIR: whereDir,
      FAKE_WHERE_WIN: 'C:\\Users\\Zoë\\bin',
    };
  }

  it("finds programs on the Windows PATH (the runnable .cmd, not npm's POSIX shim), in %APPDATA%\\npm and in %LOCALAPPDATA%\\Programs", async () => {
    const whereDir = path.join(standIns.dir, 'winbin');
    executable(path.join(whereDir, 'codex-acp'));
    executable(path.join(whereDir, 'codex-acp.cmd'));
    executable(path.join(driveC, 'Users/Zoë/AppData/Roaming/npm/claude-agent-acp.cmd'));
    executable(path.join(driveC, 'Users/Zoë/AppData/Local/Programs/grok-cli/bin/grok.exe'));
    const scan = await scanWindowsFromWsl({
      run: runCommand,
      env: windowsEnv(whereDir),
      programs: PROGRAMS,
      mountRoot: driveC,
    });
    expect(scan).toEqual({
      available: true,
      notes: [],
      found: [
        {
          program: 'claude-agent-acp',
          path: 'C:\\Users\\Zoë\\AppData\\Roaming\\npm\\claude-agent-acp.cmd',
          onPath: false,
        },
        { program: 'codex-acp', path: 'C:\\Users\\Zoë\\bin\\codex-acp.cmd', onPath: true },
        { program: 'grok', path: 'C:\\Users\\Zoë\\AppData\\Local\\Programs\\grok-cli\\bin\\grok.exe', onPath: false },
      ],
    });
  });

  it('is unavailable without the C: mount or without cmd.exe (plain Linux, or interop off)', async () => {
    const env = windowsEnv('/nonexistent');
    expect(
      await scanWindowsFromWsl({ run: runCommand, env, programs: PROGRAMS, mountRoot: path.join(mnt, 'x') }),
    ).toEqual({
      available: false,
    });
    const noCmd = { ...env, PATH: standIns.path('where.exe', 'wslpath') };
    expect(await scanWindowsFromWsl({ run: runCommand, env: noCmd, programs: PROGRAMS, mountRoot: driveC })).toEqual({
      available: false,
    });
  });

  it('notes an unset %APPDATA% and still asks where.exe', async () => {
    const whereDir = path.join(standIns.dir, 'winbin2');
    executable(path.join(whereDir, 'gemini.exe'));
    const env = { ...windowsEnv(whereDir), FAKE_APPDATA: undefined, FAKE_LOCALAPPDATA: undefined };
    const scan = await scanWindowsFromWsl({ run: runCommand, env, programs: PROGRAMS, mountRoot: driveC });
    expect(scan).toEqual({
      available: true,
      notes: ['could not read %APPDATA% through cmd.exe', 'could not read %LOCALAPPDATA% through cmd.exe'],
      found: [{ program: 'gemini', path: 'C:\\Users\\Zoë\\bin\\gemini.exe', onPath: true }],
    });
  });
});

describe('scanWslDistros', () => {
  it('asks each distro once, through a login shell, and keeps absolute paths only', async () => {
    const root = path.join(standIns.dir, 'distros');
    // Found only through the login profile, as npm-global agents are (a non-login `sh -c` misses them).
    for (const distro of ['Ubuntu', 'Debian']) {
      mkdirSync(path.join(root, distro, 'home'), { recursive: true });
      writeFileSync(path.join(root, distro, 'home', '.profile'), `PATH="${path.join(root, distro, 'bin')}:$PATH"\n`);
    }
    executable(path.join(root, 'Ubuntu', 'bin', 'codex-acp'));
    executable(path.join(root, 'Ubuntu', 'bin', 'claude'));
    executable(path.join(root, 'Debian', 'bin', 'dsh'));
    const log = path.join(standIns.dir, 'wsl.log');
    const env = {
      PATH: standIns.path('wsl.exe'),
      FAKE_WSL_DISTROS: 'Ubuntu,Debian',
      FAKE_WSL_ROOT: root,
      FAKE_WSL_LOG: log,
    };
    const scan = await scanWslDistros({ run: runCommand, env, programs: PROGRAMS });
    expect(scan).toEqual({
      available: true,
      notes: [],
      found: [
        { program: 'codex-acp', distro: 'Ubuntu', path: path.join(root, 'Ubuntu', 'bin', 'codex-acp') },
        { program: 'claude', distro: 'Ubuntu', path: path.join(root, 'Ubuntu', 'bin', 'claude') },
        { program: 'dsh', distro: 'Debian', path: path.join(root, 'Debian', 'bin', 'dsh') },
      ],
    });
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    expect(calls[0]).toEqual(['-l', '-q']);
    expect(
      calls
        .slice(1)
        .map((c) => c.slice(0, 7).join(' '))
        .sort(),
    ).toEqual([
      '-d Debian --exec sh -lc for p in "$@"; do command -v "$p" 2>/dev/null; done; exit 0 sh',
      '-d Ubuntu --exec sh -lc for p in "$@"; do command -v "$p" 2>/dev/null; done; exit 0 sh',
    ]);
  });

  it('notes a distro that cannot be asked, and is unavailable without wsl.exe', async () => {
    const failing = await scanWslDistros({
      run: async (program, args, options) =>
        args.includes('Broken') ? runCommand('false', [], options) : runCommand(program, args, options),
      env: { PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: 'Broken' },
      programs: PROGRAMS,
    });
    expect(failing).toEqual({
      available: true,
      found: [],
      notes: ['could not look in Broken: wsl.exe exited with code 1'],
    });
    expect(await scanWslDistros({ run: runCommand, env: { PATH: standIns.path() }, programs: PROGRAMS })).toEqual({
      available: false,
    });
  });

  it('sightingsIn ignores bare names (functions, aliases) and unknown programs', () => {
    const out = 'codex-acp\n/usr/bin/other\n/home/u/.local/bin/dsh\n/usr/local/bin/dsh\n';
    expect(sightingsIn('U', out, PROGRAMS)).toEqual([{ program: 'dsh', distro: 'U', path: '/home/u/.local/bin/dsh' }]);
  });
});

describe('propose', () => {
  const valid = (entry: Record<string, unknown>) => AgentConfigSchema.parse(entry);

  it('native: the known entry under its own name', () => {
    const p = propose({ known: known('codex-acp'), side: 'native', path: '/usr/bin/codex-acp' });
    expect(p.name).toBe('codex');
    expect(p.entry).toBe(known('codex-acp').entry);
  });

  it('Windows side: platform windows for ACP; the full path when the program is off PATH', () => {
    const onPath = propose({ known: known('codex-acp'), side: 'windows', path: 'C:\\b\\codex-acp.cmd', onPath: true });
    expect(onPath).toMatchObject({
      name: 'codex_windows',
      entry: { kind: 'acp', platform: 'windows', command: ['codex-acp'] },
    });
    const off = propose({ known: known('gemini'), side: 'windows', path: 'C:\\n\\gemini.cmd', onPath: false });
    expect(off.entry.command).toEqual(['C:\\n\\gemini.cmd', '--acp']);
    const cli = propose({ known: known('claude'), side: 'windows', path: 'C:\\n\\claude.exe', onPath: true });
    expect(cli.entry).not.toHaveProperty('platform');
    for (const p of [onPath, off, cli]) valid(p.entry);
  });

  it('WSL distro: ACP through `bash -lc` with platform wsl + distro; a one-shot CLI through wsl.exe with the prompt as "$@"', () => {
    const acp = propose({ known: known('gemini'), side: 'wsl', path: '/usr/bin/gemini', distro: 'Ubuntu-24.04' });
    expect(acp).toMatchObject({
      name: 'gemini_ubuntu_24_04',
      distro: 'Ubuntu-24.04',
      entry: { platform: 'wsl', distro: 'Ubuntu-24.04', command: ['bash', '-lc', 'exec gemini --acp'] },
    });
    const cli = propose({ known: known('hermes'), side: 'wsl', path: '/usr/bin/hermes', distro: 'Debian' });
    expect(cli.entry).toMatchObject({
      kind: 'subprocess_cli',
      command: ['wsl.exe', '-d', 'Debian', '--exec', 'bash', '-lc', 'exec hermes "$@"', 'hermes'],
      prompt_flag: ['-z'],
    });
    valid(acp.entry);
    valid(cli.entry);
  });

  it('shellWord quotes what the shell would split or expand', () => {
    expect(shellWord('--profile')).toBe('--profile');
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});
