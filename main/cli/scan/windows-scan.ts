/**
 * `scan` from inside WSL, looking at the Windows side (electron-windows.md §3): Windows programs are
 * reachable through interop, so `where.exe` searches the Windows PATH, and `cmd.exe` names %APPDATA% and
 * %LOCALAPPDATA%, where npm's global shims (`%APPDATA%\npm`) and per-user installs (`%LOCALAPPDATA%\Programs`)
 * live even when they are not on PATH. cmd.exe and where.exe run from the mounted C: drive: cmd.exe refuses
 * a UNC working directory, which is what a Linux cwd becomes.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '../command-runner.js';
import { decodeWslOutput } from '../wsl/wsl-probe.js';

export interface WindowsSighting {
  program: string;
  /** The Windows path found. */
  path: string;
  /** Found by where.exe: the name alone runs it from the Windows side. */
  onPath: boolean;
}

export interface WindowsScanInput {
  run: CommandRunner;
  env: NodeJS.ProcessEnv;
  programs: readonly string[];
  /** Where C: is mounted (default /mnt/c); its absence means this is not WSL. */
  mountRoot?: string;
}

export type WindowsScan = { available: false } | { available: true; found: WindowsSighting[]; notes: string[] };

const RUNNABLE = /\.(exe|cmd|bat|com)$/i;

export async function scanWindowsFromWsl(input: WindowsScanInput): Promise<WindowsScan> {
  const mountRoot = input.mountRoot ?? '/mnt/c';
  if (!existsSync(mountRoot)) return { available: false };
  const opts = { cwd: mountRoot, env: input.env, timeoutMs: 15_000 };
  const notes: string[] = [];
  const folder = async (variable: string): Promise<{ win: string; linux: string } | undefined> => {
    // /u: UTF-16 output, so a non-ASCII user name survives (the OEM code page would mangle it).
    const echoed = await input.run('cmd.exe', ['/d', '/u', '/c', `echo %${variable}%`], opts);
    if (echoed.error?.code === 'ENOENT') return undefined;
    const win = decodeWslOutput(echoed.stdout).trim();
    if (echoed.code !== 0 || !win || win === `%${variable}%`) {
      notes.push(`could not read %${variable}% through cmd.exe`);
      return undefined;
    }
    const converted = await input.run('wslpath', ['-u', win], opts);
    const linux = converted.stdout.toString('utf8').trim();
    if (converted.code !== 0 || !linux) {
      notes.push(`wslpath could not translate ${win}`);
      return undefined;
    }
    return { win, linux };
  };
  const appData = await folder('APPDATA');
  if (!appData && notes.length === 0) return { available: false }; // no cmd.exe: not WSL, or interop is off
  const localAppData = await folder('LOCALAPPDATA');
  const found = await Promise.all(
    input.programs.map(async (program): Promise<WindowsSighting | undefined> => {
      const where = await input.run('where.exe', [program], opts);
      const lines =
        where.code === 0
          ? decodeWslOutput(where.stdout)
              .split(/\r?\n/)
              .map((l) => l.trim())
          : [];
      // where.exe also lists npm's extensionless POSIX shim; Windows can run only the .cmd beside it.
      const hit = lines.find((l) => RUNNABLE.test(l));
      if (hit) return { program, path: hit, onPath: true };
      const off = offPath(program, appData, localAppData);
      return off ? { program, path: off, onPath: false } : undefined;
    }),
  );
  return { available: true, found: found.filter((f): f is WindowsSighting => f !== undefined), notes };
}

type Folder = { win: string; linux: string } | undefined;

/** npm's global shim, or `<LOCALAPPDATA>\Programs\<app>\[bin\]<program>.exe`. */
function offPath(program: string, appData: Folder, localAppData: Folder): string | undefined {
  if (appData && existsSync(path.posix.join(appData.linux, 'npm', `${program}.cmd`)))
    return path.win32.join(appData.win, 'npm', `${program}.cmd`);
  if (!localAppData) return undefined;
  const programs = path.posix.join(localAppData.linux, 'Programs');
  for (const app of subfolders(programs)) {
    for (const rel of [[`${program}.exe`], ['bin', `${program}.exe`]]) {
      if (existsSync(path.posix.join(programs, app, ...rel)))
        return path.win32.join(localAppData.win, 'Programs', app, ...rel);
    }
  }
  return undefined;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}
