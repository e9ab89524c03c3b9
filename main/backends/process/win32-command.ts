/**
 * Turning a configured command into something Windows can spawn with `shell: false`.
 *
 * Node refuses `.cmd`/`.bat` files without a shell (CVE-2024-27980), and npm/pnpm install agents as
 * exactly such shims. So: find the program on PATH with PATHEXT; when it is an npm/pnpm shim, read it
 * and run the node script (or .exe) it points at directly; only when that fails, go through
 * `cmd.exe /d /s /c "<line>"` with every metacharacter caret-escaped (the cross-spawn scheme). Pure
 * functions over a `Win32Probe`, so the logic is tested on any OS.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const win = path.win32;

export interface Win32Probe {
  isFile(file: string): boolean;
  /** The file's text, or undefined when it cannot be read. */
  readText(file: string): string | undefined;
}

export const nodeWin32Probe: Win32Probe = {
  isFile: (file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  },
  readText: (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
};

export interface Win32Launch {
  program: string;
  args: string[];
  /** Pass to spawn as `windowsVerbatimArguments`: the cmd.exe line is already quoted. */
  verbatim: boolean;
  /** How the command was resolved, for receipts and error messages. */
  via: 'direct' | 'shim' | 'cmd';
}

function envValue(env: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

/** The full path of `program` as Windows would find it (PATH × PATHEXT), or undefined. */
export function findOnPath(program: string, env: Record<string, string>, probe: Win32Probe): string | undefined {
  const exts = (envValue(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .filter(Boolean)
    .map((e) => e.toLowerCase());
  const hasExt = exts.some((e) => program.toUpperCase().endsWith(e.toUpperCase()));
  const names = hasExt ? [program, ...exts.map((e) => program + e)] : exts.map((e) => program + e);
  const explicitDir = /[\\/]/.test(program) || win.isAbsolute(program);
  const dirs = explicitDir ? [''] : (envValue(env, 'PATH') ?? '').split(';').filter(Boolean);
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = dir === '' ? win.resolve(name) : win.join(dir, name);
      if (probe.isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

export interface ShimTarget {
  /** Absolute path of the script or executable the shim runs. */
  target: string;
  /** Arguments the shim puts before the target (node flags). */
  preArgs: string[];
  runsNode: boolean;
}

const NODE_SHIM =
  /(?:"%_prog%"|"%~?dp0%?\\node\.exe"|\bnode(?:\.exe)?)\s+((?:-[^\s"]+\s+)*)"%~?dp0%?\\([^"\r\n]+)"\s+%\*/i;
const EXE_SHIM = /"%~?dp0%?\\([^"\r\n]+\.exe)"\s+%\*/i;

/** What an npm (cmd-shim) or pnpm `.cmd` runs, read from its text; undefined for other batch files. */
export function parseShim(shimPath: string, text: string): ShimTarget | undefined {
  const dir = win.dirname(shimPath);
  const node = NODE_SHIM.exec(text);
  if (node) {
    const preArgs = node[1]!.trim().split(/\s+/).filter(Boolean);
    return { target: win.resolve(dir, node[2]!), preArgs, runsNode: true };
  }
  const exe = EXE_SHIM.exec(text);
  if (exe) return { target: win.resolve(dir, exe[1]!), preArgs: [], runsNode: false };
  return undefined;
}

const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/**
 * One argument for a `cmd.exe /d /s /c "..."` line: MSVCRT quoting (backslashes before a quote doubled),
 * then every cmd metacharacter caret-escaped so nothing is expanded or split. A batch file re-parses
 * its `%*`, so arguments bound for one are escaped twice.
 */
export function quoteCmdArg(arg: string, doubleEscape: boolean): string {
  if (/[\r\n\0]/.test(arg)) throw new Error('an argument for a Windows batch file cannot contain line breaks');
  let quoted = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  quoted = `"${quoted}"`.replace(CMD_META, '^$1');
  return doubleEscape ? quoted.replace(CMD_META, '^$1') : quoted;
}

/** argv for running a batch file through cmd.exe; spawn it with `windowsVerbatimArguments: true`. */
export function cmdLaunch(batchFile: string, args: readonly string[], env: Record<string, string>): Win32Launch {
  const line = [batchFile.replace(CMD_META, '^$1'), ...args.map((a) => quoteCmdArg(a, true))].join(' ');
  return {
    program: envValue(env, 'COMSPEC') ?? 'cmd.exe',
    args: ['/d', '/s', '/c', `"${line}"`],
    verbatim: true,
    via: 'cmd',
  };
}

/** How to spawn `command` on Windows without a shell wherever possible. */
export function resolveWin32Command(
  command: readonly string[],
  env: Record<string, string>,
  probe: Win32Probe,
): Win32Launch {
  const [program, ...args] = command;
  if (program === undefined) throw new Error('command needs at least the program to run');
  const found = findOnPath(program, env, probe);
  if (found === undefined || !/\.(cmd|bat)$/i.test(found)) {
    return { program: found ?? program, args, verbatim: false, via: 'direct' };
  }
  const text = probe.readText(found);
  const shim = text === undefined ? undefined : parseShim(found, text);
  if (shim && !shim.runsNode) return { program: shim.target, args, verbatim: false, via: 'shim' };
  if (shim) {
    const localNode = win.join(win.dirname(found), 'node.exe');
    const nodeExe = probe.isFile(localNode) ? localNode : findOnPath('node.exe', env, probe);
    if (nodeExe !== undefined)
      return { program: nodeExe, args: [...shim.preArgs, shim.target, ...args], verbatim: false, via: 'shim' };
  }
  return cmdLaunch(found, args, env);
}
