/**
 * The WSL wrapper (resources/cli/contactor) run for real, by its shebang (dash on Debian) and by bash, against
 * stand-ins on PATH for wslpath and cmd.exe and an installation whose Contactor.exe reports what reached it.
 * The .cmd wrapper cannot run here, so it is checked as text.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const REPO = resolve(import.meta.dirname, '../..');
const WRAPPER = join(REPO, 'resources/cli/contactor');
const CMD_WRAPPER = join(REPO, 'resources/cli/contactor.cmd');
const FIXTURES = join(REPO, 'tests/fixtures/wsl');
const LOCAL_APPDATA = 'C:\\Users\\Test User\\AppData\\Local';
const CLI_WIN = 'C:/Users/Test User/AppData/Local/Programs/contactor/resources/cli/contactor.cjs';
const CROSSING = [
  'ELECTRON_RUN_AS_NODE/w',
  'CONTACTOR_URL',
  'CONTACTOR_TOKEN',
  'CONTACTOR_AGENT',
  'CONTACTOR_TASK_ID',
  'CONTACTOR_CONTEXT_ID',
  'CONTACTOR_MESSAGE_ID',
  'CONTACTOR_DEPTH',
  'CONTACTOR_VISITED',
  'CONTACTOR_CONFIG/p',
  'NO_COLOR',
];

interface Report {
  argv: string[];
  env: Record<string, string>;
  stdin: string;
  cwd: string;
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
}
interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  report: () => Report;
}
interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  shell?: 'shebang' | 'bash';
  path?: string;
}

let tmp: string;
let mnt: string;
let home: string;
let work: string;
let install: string;

function executable(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, 0o755);
}

/** An installation as electron-builder lays it out: the exe, and the CLI files in resources/cli. */
function makeInstall(dir: string): string {
  executable(join(FIXTURES, 'contactor-exe.js'), join(dir, 'Contactor.exe'));
  executable(WRAPPER, join(dir, 'resources/cli/contactor'));
  writeFileSync(join(dir, 'resources/cli/contactor.cjs'), '// the bundled CLI\n');
  return dir;
}

function run(wrapper: string, args: string[], options: RunOptions = {}): Run {
  const env: Record<string, string> = {
    PATH: options.path ?? `${join(tmp, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: home,
    LANG: 'C.UTF-8',
    FAKE_WSL_ROOT: mnt,
    FAKE_LOCALAPPDATA: LOCAL_APPDATA,
  };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const [file, argv] = options.shell === 'bash' ? ['bash', [wrapper, ...args]] : [wrapper, args];
  const r = spawnSync(file, argv, { cwd: options.cwd ?? work, env, input: options.input ?? '', encoding: 'utf8' });
  if (r.error) throw r.error;
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    report: () => {
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as Report;
    },
  };
}

const installedWrapper = (): string => join(install, 'resources/cli/contactor');

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'contactor-wrapper-'));
  mnt = join(tmp, 'mnt');
  home = join(tmp, 'home');
  work = join(tmp, 'work');
  mkdirSync(join(mnt, 'c'), { recursive: true });
  mkdirSync(join(work, 'sub dir'), { recursive: true });
  mkdirSync(home, { recursive: true });
  executable(join(FIXTURES, 'wslpath.js'), join(tmp, 'bin/wslpath'));
  executable(join(FIXTURES, 'cmd-exe.js'), join(tmp, 'bin/cmd.exe'));
  install = makeInstall(join(mnt, 'c/Users/Test User/AppData/Local/Programs/contactor'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('the wrapper file', () => {
  const text = readFileSync(WRAPPER, 'utf8');

  it('is an executable POSIX sh script with LF endings that dash and bash both parse', () => {
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).not.toContain('\r');
    expect(statSync(WRAPPER).mode & 0o111).toBe(0o111);
    for (const shell of ['dash', 'bash']) {
      const check = spawnSync(shell, ['-n', WRAPPER], { encoding: 'utf8' });
      expect(check.status, `${shell}: ${check.stderr}`).toBe(0);
    }
  });

  it('has its line endings pinned by .gitattributes', () => {
    const attrs = spawnSync(
      'git',
      ['check-attr', 'eol', '--', 'resources/cli/contactor', 'resources/cli/contactor.cmd'],
      { cwd: REPO, encoding: 'utf8' },
    );
    expect(attrs.stdout).toContain('resources/cli/contactor: eol: lf');
    expect(attrs.stdout).toContain('resources/cli/contactor.cmd: eol: crlf');
  });
});

describe('contactor.cmd', () => {
  const text = readFileSync(CMD_WRAPPER, 'utf8');
  const lines = text.split('\r\n');

  it('has CRLF endings throughout', () => {
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
  });

  it('runs the bundled CLI with the app exe in Node mode and keeps its exit code past endlocal', () => {
    expect(lines[0]).toBe('@echo off');
    const code = lines.filter((l) => l !== '' && !/^rem /i.test(l));
    expect(code).toEqual([
      '@echo off',
      'setlocal',
      'set ELECTRON_RUN_AS_NODE=1',
      '"%~dp0..\\..\\Contactor.exe" "%~dp0contactor.cjs" %*',
      'endlocal & exit /b %ERRORLEVEL%',
    ]);
  });
});

describe.each(['shebang', 'bash'] as const)('run by %s', (shell) => {
  it('passes arguments with spaces, quotes, $, globs, newlines and unicode through unchanged', () => {
    const args = ['send', 'dsh', 'fix "the" bug', "it's $HOME `x` \\n", '*', 'two\nlines', '李雷 ✓ Zoë 🚀', '', '-x'];
    const r = run(installedWrapper(), args, { shell });
    expect(r.status).toBe(0);
    expect(r.report().argv).toEqual([CLI_WIN, ...args]);
  });

  it('runs the native launcher when the installation has one: the arguments as given, no CLI path in front', () => {
    executable(join(FIXTURES, 'contactor-exe.js'), join(install, 'resources/cli/contactor.exe'));
    const args = ['send', 'dsh', 'two\nlines', '%PATH%', 'R&D', '"quoted"', '李雷 ✓'];
    const r = run(installedWrapper(), args, { shell });
    expect(r.status).toBe(0);
    expect(r.report().argv).toEqual(args);
  });

  it('forwards piped stdin to the exe, including large unicode input', () => {
    const input = 'brief: ünïcødé ✓\n'.repeat(20_000);
    const r = run(installedWrapper(), ['send', 'dsh', '-'], { shell, input });
    expect(r.status).toBe(0);
    expect(r.report().stdin).toBe(input);
  });

  it.each([0, 1, 3, 4, 5, 6])('propagates exit code %i and keeps stderr apart from stdout', (code) => {
    const r = run(installedWrapper(), ['get', 't1'], {
      shell,
      env: { FAKE_EXIT_CODE: String(code), FAKE_STDERR: 'from the exe\n' },
    });
    expect(r.status).toBe(code);
    expect(r.stderr).toBe('from the exe\n');
    expect(JSON.parse(r.stdout)).toMatchObject({ argv: [CLI_WIN, 'get', 't1'] });
  });

  it('runs the exe in Node mode with WSLENV listing every variable that must cross', () => {
    const r = run(installedWrapper(), ['status'], { shell, env: { CONTACTOR_TASK_ID: 't-9' } });
    const { env } = r.report();
    expect(env.ELECTRON_RUN_AS_NODE).toBe('1');
    expect(env.WSLENV?.split(':')).toEqual(CROSSING);
    expect(env.CONTACTOR_TASK_ID).toBe('t-9');
  });
});

describe('path arguments', () => {
  const winWork = (): string => `//wsl.localhost/Test${work}`;

  it('translates --cwd, --file and -c/--config values in both forms, relative ones from the cwd', () => {
    writeFileSync(join(work, 'brief.md'), 'x');
    mkdirSync(join(mnt, 'c/proj'));
    writeFileSync(join(home, 'cfg.yaml'), '');
    const r = run(installedWrapper(), [
      'send',
      'dsh',
      'go',
      '--cwd',
      'sub dir',
      '--file=brief.md',
      '--file',
      join(mnt, 'c/proj'),
      '-c',
      '~/cfg.yaml',
      '--config=C:\\already\\windows.yaml',
      '--cwd=.',
    ]);
    expect(r.status).toBe(0);
    expect(r.report().argv.slice(1)).toEqual([
      'send',
      'dsh',
      'go',
      '--cwd',
      `${winWork()}/sub dir`,
      `--file=${winWork()}/brief.md`,
      '--file',
      'C:/proj',
      '-c',
      `//wsl.localhost/Test${home}/cfg.yaml`,
      '--config=C:\\already\\windows.yaml',
      `--cwd=${winWork()}/.`,
    ]);
  });

  it('translates every path option of the CLI: --data-dir, skill install --dir, -cFILE, --config=FILE', () => {
    writeFileSync(join(home, 'cfg.yaml'), '');
    mkdirSync(join(work, 'data'));
    mkdirSync(join(work, 'skills'));
    const r = run(installedWrapper(), [
      '--data-dir',
      'data',
      '--data-dir=data',
      '-c~/cfg.yaml',
      '--config=~/cfg.yaml',
      'skill',
      'install',
      '--for',
      'claude',
      '--dir',
      'skills',
      '--json',
      '-x',
    ]);
    expect(r.status).toBe(0);
    expect(r.report().argv.slice(1)).toEqual([
      '--data-dir',
      `${winWork()}/data`,
      `--data-dir=${winWork()}/data`,
      `-c//wsl.localhost/Test${home}/cfg.yaml`,
      `--config=//wsl.localhost/Test${home}/cfg.yaml`,
      'skill',
      'install',
      '--for',
      'claude',
      '--dir',
      `${winWork()}/skills`,
      '--json',
      '-x',
    ]);
  });

  it('its list of path options is the CLI’s own: every <file>, <dir> or <path> option, and nothing else', async () => {
    const { buildProgram } = await import('../../main/cli/program.js');
    const program = buildProgram(() => async () => undefined, '0');
    const found = new Set<string>();
    const walk = (cmd: typeof program): void => {
      for (const o of cmd.options)
        if (/<(file|dir|path)>/.test(o.flags)) for (const f of [o.short, o.long]) if (f) found.add(f);
      cmd.commands.forEach(walk);
    };
    walk(program);
    const listed = /^PATH_OPTIONS='([^']*)'$/m.exec(readFileSync(WRAPPER, 'utf8'))![1]!.split(' ');
    expect(new Set(listed)).toEqual(found);
  });

  it('skill install from WSL hands the CLI this distro’s home, so the skill lands where the WSL agent reads it', () => {
    const r = run(installedWrapper(), ['skill', 'install', '--for', 'claude']);
    expect(r.status).toBe(0);
    const { env } = r.report();
    expect(env.CONTACTOR_WSL_HOME).toBe(`//wsl.localhost/Test${home}`);
    expect(env.WSLENV?.split(':')).toContain('CONTACTOR_WSL_HOME');
    expect(run(installedWrapper(), ['status']).report().env.CONTACTOR_WSL_HOME).toBeUndefined();
  });

  it('leaves everything after -- alone, and "-" (stdin) as it is', () => {
    const r = run(installedWrapper(), ['send', 'dsh', '--file', '-', '--', '--cwd', 'not/a/path']);
    expect(r.status).toBe(0);
    expect(r.report().argv.slice(1)).toEqual(['send', 'dsh', '--file', '-', '--', '--cwd', 'not/a/path']);
  });

  it('a path that does not exist yet: its nearest existing parent translated, the rest appended', () => {
    // The stand-in refuses missing paths, as wslpath -m does (tests/fixtures/wsl/wslpath.js).
    const r = run(installedWrapper(), [
      '--data-dir',
      './new',
      '-c',
      '~/new.yaml',
      'skill',
      'install',
      '--dir',
      'sub dir/skills/deeper/',
      '--file',
      'missing.md',
    ]);
    expect(r.status).toBe(0);
    expect(r.report().argv.slice(1)).toEqual([
      '--data-dir',
      `${winWork()}/./new`,
      '-c',
      `//wsl.localhost/Test${home}/new.yaml`,
      'skill',
      'install',
      '--dir',
      `${winWork()}/sub dir/skills/deeper`,
      '--file',
      `${winWork()}/missing.md`,
    ]);
  });

  it('refuses a path Windows cannot be given, naming the flag, without running the exe', () => {
    // wslpath itself failing for the folder: e.g. a Linux path on a distro Windows cannot reach.
    executable(join(FIXTURES, 'wslpath.js'), join(tmp, 'bin/wslpath-real'));
    writeFileSync(
      join(tmp, 'bin/wslpath'),
      `#!/bin/sh\ncase "$2" in ${work}*) exit 1 ;; esac\nexec "${join(tmp, 'bin/wslpath-real')}" "$@"\n`,
    );
    const r = run(installedWrapper(), ['send', 'dsh', 'go', '--file', 'missing.md']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("contactor: cannot give --file 'missing.md' to Windows");
  });
});

describe('WSLENV', () => {
  it('keeps what the user listed, with their flags, and adds no name twice', () => {
    const r = run(installedWrapper(), ['status'], {
      env: { WSLENV: 'FOO/p:CONTACTOR_URL/u:ELECTRON_RUN_AS_NODE:NO_COLOR' },
    });
    const parts = r.report().env.WSLENV!.split(':');
    const names = parts.map((p) => p.split('/')[0]);
    expect(new Set(names).size).toBe(names.length);
    expect(parts.slice(0, 4)).toEqual(['FOO/p', 'CONTACTOR_URL/u', 'ELECTRON_RUN_AS_NODE', 'NO_COLOR']);
    expect(new Set(names)).toEqual(new Set(['FOO', ...CROSSING.map((c) => c.split('/')[0])]));
  });
});

describe('finding the installation', () => {
  it('follows a symlink to the installation it belongs to', () => {
    const elsewhere = makeInstall(join(tmp, 'opt/Contactor Beta'));
    const link = join(home, '.local/bin/contactor');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(elsewhere, 'resources/cli/contactor'), link);
    const r = run(link, ['agents'], { env: { FAKE_LOCALAPPDATA: undefined } });
    expect(r.status).toBe(0);
    expect(r.report().argv).toEqual([`//wsl.localhost/Test${elsewhere}/resources/cli/contactor.cjs`, 'agents']);
  });

  it('falls back to %LOCALAPPDATA%\\Programs, asked of cmd.exe, for a non-ASCII user name too', () => {
    const user = 'Zoë 李';
    makeInstall(join(mnt, `c/Users/${user}/AppData/Local/Programs/Contactor`));
    // The repository's copy is not inside an installation, so only the fallback can find one.
    const r = run(WRAPPER, ['agents'], { env: { FAKE_LOCALAPPDATA: `C:\\Users\\${user}\\AppData\\Local` } });
    expect(r.status).toBe(0);
    expect(r.report().argv[0]).toBe(`C:/Users/${user}/AppData/Local/Programs/Contactor/resources/cli/contactor.cjs`);
  });

  it('prefers CONTACTOR_INSTALL_DIR, given as a Windows or a Linux path', () => {
    const dir = makeInstall(join(mnt, 'd/Apps/Contactor'));
    for (const value of ['D:\\Apps\\Contactor', dir]) {
      const r = run(installedWrapper(), ['agents'], { env: { CONTACTOR_INSTALL_DIR: value } });
      expect(r.status).toBe(0);
      expect(r.report().argv[0]).toBe('D:/Apps/Contactor/resources/cli/contactor.cjs');
    }
  });

  it('does not fall back when CONTACTOR_INSTALL_DIR names no installation', () => {
    const r = run(installedWrapper(), ['agents'], { env: { CONTACTOR_INSTALL_DIR: join(tmp, 'nothing') } });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${join(tmp, 'nothing')} (CONTACTOR_INSTALL_DIR)`);
  });

  it('explains a missing installation: where it looked and how to fix it, exit 2', () => {
    const r = run(WRAPPER, ['agents'], { env: { FAKE_LOCALAPPDATA: 'C:\\Users\\Nobody\\AppData\\Local' } });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('contactor: cannot find the Contactor app for Windows');
    expect(r.stderr).toContain(`${REPO} (where this script lives)`);
    expect(r.stderr).toContain(
      `${mnt}/c/Users/Nobody/AppData/Local/Programs/contactor (%LOCALAPPDATA%\\Programs\\contactor)`,
    );
    expect(r.stderr).toContain('Install Contactor on Windows, or point CONTACTOR_INSTALL_DIR');
  });

  it('says so when cmd.exe cannot tell where %LOCALAPPDATA% is', () => {
    const r = run(WRAPPER, ['agents'], { env: { FAKE_LOCALAPPDATA: undefined } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cmd.exe could not tell where %LOCALAPPDATA% is');
  });
});

describe('setup problems', () => {
  it('says it is meant for WSL when wslpath is missing', () => {
    const r = run(installedWrapper(), ['agents'], { path: '/usr/bin:/bin' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('wslpath not found');
  });

  it('points at WSL interop when the exe cannot be executed', () => {
    chmodSync(join(install, 'Contactor.exe'), 0o644);
    const r = run(installedWrapper(), ['agents']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Is WSL interop on?');
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  // A GUI-subsystem exe can neither read nor write a console through interop: from a terminal it gets pipes.
  it.skipIf(!hasScript)('never hands the exe the terminal: stdin /dev/null, stdout and stderr piped', () => {
    const r = spawnSync('script', ['-qec', `'${installedWrapper()}' pending`, '/dev/null'], {
      env: { PATH: `${join(tmp, 'bin')}:${process.env.PATH ?? ''}`, HOME: home, FAKE_WSL_ROOT: mnt },
      encoding: 'utf8',
      timeout: TEST_TIMEOUT_MS,
    });
    expect(r.status).toBe(0);
    const line = r.stdout.split(/\r?\n/).find((l) => l.startsWith('{'));
    expect(JSON.parse(line!)).toMatchObject({
      argv: [CLI_WIN, 'pending'],
      stdin: '',
      tty: { stdin: false, stdout: false, stderr: false },
    });
  });
});

/**
 * Git Bash, MSYS2 and Cygwin find this script before contactor.exe: `contactor` is tried bare before `.exe`
 * (Cygwin winsup/cygwin/spawn.cc exe_suffixes = {"", ".exe"}). `uname -s` there prints MINGW64_NT-…, MSYS_NT-…
 * or CYGWIN_NT-…: a stand-in prints each, with no wslpath on PATH, and a stand-in contactor.exe beside the
 * script records its argv, stdin and exit code.
 */
describe('in Git Bash, MSYS2 and Cygwin', () => {
  const unameBin = (): string => join(tmp, 'uname-bin');
  function nativeShell(kernel: string): string {
    mkdirSync(unameBin(), { recursive: true });
    writeFileSync(join(unameBin(), 'uname'), `#!/bin/sh\n[ "$1" = -s ] && echo '${kernel}'\n`, { mode: 0o755 });
    // `cygpath -m` as Cygwin's: /cygdrive/<d>/… is <D>:/…, anything else lies under its root C:/cygwin64.
    writeFileSync(
      join(unameBin(), 'cygpath'),
      `#!/bin/sh\n[ "$1" = -m ] || exit 1\nshift; [ "$1" = -- ] && shift\n` +
        `case $1 in /cygdrive/?/*) d=$(printf %s "$1" | cut -c11 | tr a-z A-Z); printf '%s:%s\\n' "$d" "\${1#/cygdrive/?}" ;;\n` +
        `*) printf 'C:/cygwin64%s\\n' "$1" ;; esac\n`,
      { mode: 0o755 },
    );
    executable(join(FIXTURES, 'contactor-exe.js'), join(install, 'resources/cli/contactor.exe'));
    // No wslpath, no cmd.exe: only the stand-ins, node for the stand-in exe, and the system's tools.
    return `${unameBin()}:${dirname(process.execPath)}:/usr/bin:/bin`;
  }
  const HARD_ARGS = ['send', 'echo', 'a b', 'say "hi"', '$HOME', '*', 'ünï ✓', 'line\nbreak', ''];

  it.each(['MINGW64_NT-10.0-26100', 'MINGW32_NT-10.0-26100', 'MSYS_NT-10.0-26100'])(
    '%s: runs contactor.exe beside it with the arguments untouched (MSYS2 converts paths itself)',
    (kernel) => {
      const path = nativeShell(kernel);
      // A POSIX path stays as given: MSYS2 has already converted what it would convert before we see it.
      const r = run(installedWrapper(), [...HARD_ARGS, '--cwd', '/c/Users/x/p'], { path, input: 'piped ✓' });
      expect(r.status).toBe(0);
      const report = r.report();
      expect(report.argv).toEqual([...HARD_ARGS, '--cwd', '/c/Users/x/p']);
      expect(report.stdin).toBe('piped ✓');
      // Not Node mode by the wrapper: the launcher sets that itself.
      expect(report.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
      expect(report.env.WSLENV).toBeUndefined();
    },
  );

  it.each([0, 1, 2, 7])('hands back the launcher’s exit code %i', (code) => {
    const path = nativeShell('MINGW64_NT-10.0-26100');
    const r = run(installedWrapper(), ['status'], { path, env: { FAKE_EXIT_CODE: String(code) } });
    expect(r.status).toBe(code);
  });

  it('reached through a symlink, it still runs the contactor.exe of its own installation', () => {
    const path = nativeShell('MSYS_NT-10.0-26100');
    const link = join(tmp, 'home/bin/contactor');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(installedWrapper(), link);
    expect(run(link, ['--version'], { path }).report().argv).toEqual(['--version']);
  });

  it('CYGWIN_NT: translates path options with cygpath (Cygwin converts nothing), everything else as given', () => {
    const path = nativeShell('CYGWIN_NT-10.0-26100');
    const r = run(
      installedWrapper(),
      ['send', 'echo', 'a b', '--cwd', '/cygdrive/d/work', '-c', '/home/me/c.yaml', '--', '--cwd', '/x'],
      { path, env: { HOME: '/home/me' } },
    );
    expect(r.status).toBe(0);
    expect(r.report().argv).toEqual([
      'send',
      'echo',
      'a b',
      '--cwd',
      'D:/work',
      '-c',
      'C:/cygwin64/home/me/c.yaml',
      '--',
      '--cwd',
      '/x',
    ]);
  });

  it('without contactor.exe beside it: says so, exit 2, and never looks for wslpath', () => {
    const path = nativeShell('MINGW64_NT-10.0-26100');
    rmSync(join(install, 'resources/cli/contactor.exe'));
    const r = run(installedWrapper(), ['status'], { path });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot find contactor.exe beside this script');
    expect(r.stderr).not.toContain('wslpath');
  });

  it('on Linux (WSL) uname says Linux and the WSL path runs as before', () => {
    mkdirSync(unameBin(), { recursive: true });
    writeFileSync(join(unameBin(), 'uname'), `#!/bin/sh\necho Linux\n`, { mode: 0o755 });
    const r = run(installedWrapper(), ['pending'], { path: `${unameBin()}:${join(tmp, 'bin')}:${process.env.PATH}` });
    expect(r.report().argv).toEqual([CLI_WIN, 'pending']);
  });
});
