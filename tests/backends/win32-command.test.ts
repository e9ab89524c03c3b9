import { describe, expect, it } from 'vitest';
import {
  cmdLaunch,
  findOnPath,
  parseShim,
  quoteCmdArg,
  resolveWin32Command,
  type Win32Probe,
} from '../../main/backends/process/win32-command.js';

/** A fake Windows file system: paths compared case-insensitively, as NTFS does. */
function probe(files: Record<string, string>): Win32Probe {
  const byKey = new Map(Object.entries(files).map(([k, v]) => [k.toLowerCase(), v]));
  return { isFile: (f) => byKey.has(f.toLowerCase()), readText: (f) => byKey.get(f.toLowerCase()) };
}

// What npm's cmd-shim writes for a package bin (npm 10).
const NPM_SHIM = `@ECHO off\r
GOTO start\r
:find_dp0\r
SET dp0=%~dp0\r
EXIT /b\r
:start\r
SETLOCAL\r
CALL :find_dp0\r
\r
IF EXIST "%dp0%\\node.exe" (\r
  SET "_prog=%dp0%\\node.exe"\r
) ELSE (\r
  SET "_prog=node"\r
  SET PATHEXT=%PATHEXT:;.JS;=;%\r
)\r
\r
endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\@agentclientprotocol\\claude-agent-acp\\dist\\index.js" %*\r
`;

// What pnpm writes.
const PNPM_SHIM = `@SETLOCAL\r
@IF NOT DEFINED NODE_PATH (\r
  @SET "NODE_PATH=C:\\pnpm\\node_modules"\r
)\r
@IF EXIST "%~dp0\\node.exe" (\r
  "%~dp0\\node.exe"  "%~dp0\\..\\pnpm\\bin\\pnpm.cjs" %*\r
) ELSE (\r
  @SET PATHEXT=%PATHEXT:;.JS;=;%\r
  node  "%~dp0\\..\\pnpm\\bin\\pnpm.cjs" %*\r
)\r
`;

const ENV = {
  Path: 'C:\\Windows\\System32;C:\\Users\\Zoë\\AppData\\Roaming\\npm;C:\\Program Files\\nodejs',
  ComSpec: 'C:\\Windows\\System32\\cmd.exe',
};
const NPM_DIR = 'C:\\Users\\Zoë\\AppData\\Roaming\\npm';
const NODE = 'C:\\Program Files\\nodejs\\node.exe';

describe('findOnPath', () => {
  it('walks PATH × PATHEXT in order, case-insensitively', () => {
    const fs = probe({ [`${NPM_DIR}\\claude-agent-acp.cmd`]: NPM_SHIM, [NODE]: '' });
    expect(findOnPath('claude-agent-acp', ENV, fs)).toBe(`${NPM_DIR}\\claude-agent-acp.cmd`);
    expect(findOnPath('NODE', ENV, fs)).toBe('C:\\Program Files\\nodejs\\NODE.exe');
    expect(findOnPath('node.exe', ENV, fs)).toBe(NODE);
    expect(findOnPath('missing', ENV, fs)).toBeUndefined();
  });

  it('takes a path with a directory as given', () => {
    const fs = probe({ 'D:\\tools\\agent.exe': '' });
    expect(findOnPath('D:\\tools\\agent', ENV, fs)).toBe('D:\\tools\\agent.exe');
  });
});

describe('parseShim', () => {
  it('reads the script an npm shim runs', () => {
    expect(parseShim(`${NPM_DIR}\\claude-agent-acp.cmd`, NPM_SHIM)).toEqual({
      target: `${NPM_DIR}\\node_modules\\@agentclientprotocol\\claude-agent-acp\\dist\\index.js`,
      preArgs: [],
      runsNode: true,
    });
  });

  it('reads the script a pnpm shim runs, resolving ..', () => {
    expect(parseShim('C:\\pnpm\\bin\\pnpm.cmd', PNPM_SHIM)?.target).toBe('C:\\pnpm\\pnpm\\bin\\pnpm.cjs');
  });

  it('keeps node flags the shim passes', () => {
    const text = '"%_prog%" --no-warnings --max-old-space-size=4096 "%dp0%\\..\\pkg\\bin.js" %*';
    expect(parseShim('C:\\x\\a.cmd', text)).toEqual({
      target: 'C:\\pkg\\bin.js',
      preArgs: ['--no-warnings', '--max-old-space-size=4096'],
      runsNode: true,
    });
  });

  it('reads an exe shim and ignores a hand-written batch file', () => {
    expect(parseShim('C:\\x\\t.cmd', '@"%~dp0\\..\\t\\tool.exe"   %*')).toEqual({
      target: 'C:\\t\\tool.exe',
      preArgs: [],
      runsNode: false,
    });
    expect(parseShim('C:\\x\\t.bat', '@echo off\r\npython -m agent %*\r\n')).toBeUndefined();
  });
});

describe('quoteCmdArg', () => {
  it.each([
    ['plain', '^"plain^"'],
    ['with space', '^"with^ space^"'],
    ['say "hi"', '^"say^ \\^"hi\\^"^"'],
    ['C:\\dir\\', '^"C:\\dir\\\\^"'],
    ['a\\"b', '^"a\\\\\\^"b^"'],
    ['100%', '^"100^%^"'],
    ['%PATH%', '^"^%PATH^%^"'],
    ['x^y', '^"x^^y^"'],
    ['a&b|c<d>e', '^"a^&b^|c^<d^>e^"'],
    ['!bang!', '^"^!bang^!^"'],
    ['项目 Zoë', '^"项目^ Zoë^"'],
    ['', '^"^"'],
  ])('%j once-escaped', (input, expected) => {
    expect(quoteCmdArg(input, false)).toBe(expected);
  });

  it('escapes twice for a batch file, which re-parses %*', () => {
    expect(quoteCmdArg('a&b', true)).toBe('^^^"a^^^&b^^^"');
    expect(quoteCmdArg('50%', true)).toBe('^^^"50^^^%^^^"');
  });

  it('refuses line breaks, which cmd.exe cannot carry', () => {
    expect(() => quoteCmdArg('a\nb', true)).toThrow(/line breaks/);
  });
});

describe('resolveWin32Command', () => {
  it('runs an npm shim through node directly', () => {
    const fs = probe({ [`${NPM_DIR}\\claude-agent-acp.cmd`]: NPM_SHIM, [NODE]: '' });
    expect(resolveWin32Command(['claude-agent-acp', '--flag', 'a b'], ENV, fs)).toEqual({
      program: NODE,
      args: [`${NPM_DIR}\\node_modules\\@agentclientprotocol\\claude-agent-acp\\dist\\index.js`, '--flag', 'a b'],
      verbatim: false,
      via: 'shim',
    });
  });

  it('prefers a node.exe next to the shim, as the shim itself does', () => {
    const fs = probe({ [`${NPM_DIR}\\a.cmd`]: NPM_SHIM, [`${NPM_DIR}\\node.exe`]: '', [NODE]: '' });
    expect(resolveWin32Command(['a'], ENV, fs).program).toBe(`${NPM_DIR}\\node.exe`);
  });

  it('spawns an .exe directly with its full path', () => {
    const fs = probe({ 'C:\\Program Files\\nodejs\\codex-acp.exe': '' });
    expect(resolveWin32Command(['codex-acp'], ENV, fs)).toEqual({
      program: 'C:\\Program Files\\nodejs\\codex-acp.exe',
      args: [],
      verbatim: false,
      via: 'direct',
    });
  });

  it('leaves a missing program to fail at spawn with its own name', () => {
    expect(resolveWin32Command(['nope', 'x'], ENV, probe({}))).toEqual({
      program: 'nope',
      args: ['x'],
      verbatim: false,
      via: 'direct',
    });
  });

  it('falls back to cmd.exe with a safely quoted line for other batch files', () => {
    const fs = probe({ 'C:\\Program Files\\nodejs\\agent.bat': '@echo off\r\npython -m agent %*\r\n' });
    const launch = resolveWin32Command(['agent', 'say "hi" & del x', '100%'], ENV, fs);
    expect(launch.program).toBe('C:\\Windows\\System32\\cmd.exe');
    expect(launch.verbatim).toBe(true);
    expect(launch.args).toEqual([
      '/d',
      '/s',
      '/c',
      '"C:\\Program^ Files\\nodejs\\agent.bat ^^^"say^^^ \\^^^"hi\\^^^"^^^ ^^^&^^^ del^^^ x^^^" ^^^"100^^^%^^^""',
    ]);
  });

  it('falls back to cmd.exe when a shim has no node to run', () => {
    const fs = probe({ [`${NPM_DIR}\\a.cmd`]: NPM_SHIM });
    expect(resolveWin32Command(['a'], { Path: NPM_DIR }, fs)).toMatchObject({ program: 'cmd.exe', via: 'cmd' });
  });

  it('builds the cmd line from the resolved batch path', () => {
    expect(cmdLaunch('C:\\a (x86)\\b.cmd', ['ü'], {}).args[3]).toBe('"C:\\a^ ^(x86^)\\b.cmd ^^^"ü^^^""');
  });
});
