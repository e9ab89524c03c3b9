/**
 * How this install runs its own `contactor` CLI, as an absolute program an agent can start itself (the
 * `contactor mcp` server the bridge offers every ACP agent, docs/backends.md#contactor-mcp-in-every-session).
 * An absolute program, never a bare `contactor` looked up on PATH: an MCP client may start its servers
 * with little of its own environment, and another `contactor` could come first there.
 *
 *   the packaged Windows app   <install>\resources\cli\contactor.exe (the native launcher), else
 *                              <install>\Contactor.exe <install>\resources\cli\contactor.cjs in Node mode
 *   npm / a clone              the Node running the bridge with <package>/bin/contactor.js
 *
 * A WSL agent gets the same CLI seen from its distro: the packaged app's WSL wrapper
 * (<install>/resources/cli/contactor, which hands the CONTACTOR_ variables to Windows through WSLENV
 * itself), or the Windows Node with WSLENV naming the variables that must cross (only those named there
 * reach a Windows program). Pure, with the host facts passed in.
 */
import path from 'node:path';
import { windowsToWsl } from './wsl-paths.js';

/** A command line and the variables it needs beyond the ones its caller adds. */
export interface CliCommand {
  program: string;
  args: string[];
  env: Record<string, string>;
}

export interface CliInstall {
  hostPlatform: NodeJS.Platform;
  /** The Node (or Electron) running the bridge: process.execPath. */
  execPath: string;
  /** The desktop app's exe when the bridge runs in it (agent-env.ts currentAppExe). */
  appExe: string | undefined;
  /** The packaged app's CLI folder (agent-env.ts installedCliDir), undefined elsewhere. */
  cliDir: string | undefined;
  /** The package root, where bin/contactor.js is in an npm install or a clone. */
  packageRoot: string;
  exists: (file: string) => boolean;
}

/** The CLI as a Windows or native agent starts it; undefined when this install has no CLI to run. */
export function contactorCli(install: CliInstall): CliCommand | undefined {
  if (install.cliDir !== undefined) {
    const launcher = path.win32.join(install.cliDir, 'contactor.exe');
    if (install.exists(launcher)) return { program: launcher, args: [], env: {} };
    const exe = install.appExe ?? path.win32.join(install.cliDir, '..', '..', 'Contactor.exe');
    return {
      program: exe,
      args: [path.win32.join(install.cliDir, 'contactor.cjs')],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    };
  }
  const paths = install.hostPlatform === 'win32' ? path.win32 : path.posix;
  const bin = paths.join(install.packageRoot, 'bin', 'contactor.js');
  if (!install.exists(bin)) return undefined;
  // An Electron running a clone (`electron .`) runs scripts only in Node mode.
  return { program: install.execPath, args: [bin], env: install.appExe ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/**
 * The same CLI started from inside a WSL distro. `passed` names the variables the caller sets for it: a
 * Windows program sees them only when WSLENV lists them (the packaged wrapper lists the CONTACTOR_ ones).
 */
export function contactorCliFromWsl(
  install: CliInstall,
  distro: string | undefined,
  passed: readonly string[],
): CliCommand | undefined {
  // wsl.exe starts a WSL agent from Windows only: elsewhere there is no Windows CLI for it to reach.
  if (install.hostPlatform !== 'win32') return undefined;
  if (install.cliDir !== undefined) {
    return { program: windowsToWsl(path.win32.join(install.cliDir, 'contactor'), distro), args: [], env: {} };
  }
  const windows = contactorCli(install);
  if (!windows) return undefined;
  // The script path stays a Windows path: the Windows Node reads it.
  const crossing = [...passed, ...Object.keys(windows.env).map((name) => `${name}/w`)];
  return {
    program: windowsToWsl(windows.program, distro),
    args: windows.args,
    env: { ...windows.env, WSLENV: crossing.join(':') },
  };
}
