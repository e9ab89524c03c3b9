/**
 * Two environment rules for the processes the bridge starts, when it runs inside the desktop app:
 *
 * - `ELECTRON_RUN_AS_NODE=1` only for the app's own exe (the bundled demo agent, the CLI). Set in an agent's
 *   inherited environment it would make every Electron program the agent starts (VS Code, Cursor, an
 *   Electron test suite) run as plain Node (electron/electron shell/app/electron_main_win.cc checks the
 *   variable at startup of any Electron exe).
 * - The installed CLI folder (`<install>\resources\cli`, holding contactor.cmd and the WSL wrapper) first on
 *   PATH, for Windows agents directly and for WSL agents through `CONTACTOR_CLI_DIR` (WSLENV `/p` turns it
 *   into a /mnt/... path) and a `sh -c` that prepends it: WSL appends the Windows PATH at the end
 *   (wsl.conf `[interop] appendWindowsPath`), where another `contactor` could win.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export const CLI_DIR_VAR = 'CONTACTOR_CLI_DIR';

/** The app's exe when this process is Electron (in app or Node mode), else undefined. */
export function currentAppExe(): string | undefined {
  return process.versions.electron !== undefined ? process.execPath : undefined;
}

/** `env` for spawning `program`: with ELECTRON_RUN_AS_NODE=1 exactly when `program` is the app's exe. */
export function envForProgram(
  program: string,
  env: Record<string, string>,
  appExe: string | undefined,
  hostPlatform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const clean = Object.fromEntries(Object.entries(env).filter(([k]) => k.toUpperCase() !== 'ELECTRON_RUN_AS_NODE'));
  return appExe !== undefined && samePath(program, appExe, hostPlatform)
    ? { ...clean, ELECTRON_RUN_AS_NODE: '1' }
    : clean;
}

function samePath(a: string, b: string, hostPlatform: NodeJS.Platform): boolean {
  if (hostPlatform !== 'win32') return path.posix.resolve(a) === path.posix.resolve(b);
  return path.win32.resolve(a).toLowerCase() === path.win32.resolve(b).toLowerCase();
}

/**
 * `env` with `cliDir` first on PATH (Windows keeps one PATH whatever its case, e.g. `Path`) and named in
 * CONTACTOR_CLI_DIR for WSL agents. Unchanged without a `cliDir`.
 */
export function withCliDirFirst(
  env: Record<string, string>,
  cliDir: string | undefined,
  hostPlatform: NodeJS.Platform = process.platform,
): Record<string, string> {
  if (cliDir === undefined) return env;
  const sep = hostPlatform === 'win32' ? ';' : ':';
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  const rest = (env[key] ?? '').split(sep).filter((d) => d !== '' && d !== cliDir);
  return { ...env, [key]: [cliDir, ...rest].join(sep), [CLI_DIR_VAR]: cliDir };
}

/**
 * The command for `wsl.exe --exec` with the CLI folder prepended to the Linux PATH: `sh -c` because
 * `--exec` runs no shell; the command itself is passed as positional arguments, never re-parsed.
 */
export function wslCommandWithCliDir(command: readonly string[]): string[] {
  return ['sh', '-c', `[ -n "\${${CLI_DIR_VAR}:-}" ] && PATH="$${CLI_DIR_VAR}:$PATH"; exec "$@"`, 'sh', ...command];
}

/**
 * The installed CLI folder, `<resources>\\cli`, when this is the packaged Windows app (or its bundled CLI):
 * it then holds contactor.cmd and contactor.cjs (electron-builder.yml extraResources). In the repo the
 * bundle lives in out/cli instead, and elsewhere there is nothing to put on PATH.
 */
export function installedCliDir(
  resourcesDir: string,
  hostPlatform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = existsSync,
): string | undefined {
  if (hostPlatform !== 'win32') return undefined;
  const dir = path.win32.join(resourcesDir, 'cli');
  return exists(path.win32.join(dir, 'contactor.cmd')) && exists(path.win32.join(dir, 'contactor.cjs'))
    ? dir
    : undefined;
}
