/**
 * Start at login. Electron writes HKCU\…\Run\<AUMID> and, with `enabled` left true, deletes the
 * StartupApproved value: it would undo a user who disabled us in Task Manager. So the registry is written
 * only when the user toggles the menu item, never at startup (electron-windows.md §1 "Autostart").
 */

export interface LoginItemApp {
  getLoginItemSettings(options?: { path?: string; args?: string[] }): {
    openAtLogin: boolean;
    executableWillLaunchAtLogin?: boolean;
  };
  setLoginItemSettings(settings: { openAtLogin: boolean; path?: string; args?: string[] }): void;
}

/** The argument a login start carries: the app then stays in the tray without opening a window. */
export const HIDDEN_FLAG = '--hidden';

/**
 * The portable build runs from a fresh %TEMP% unpack dir; its launcher sets PORTABLE_EXECUTABLE_FILE to the
 * .exe the user keeps, which is what must start at login. Per-user NSIS keeps process.execPath across updates.
 */
export function loginItemTarget(
  env: Record<string, string | undefined>,
  execPath: string,
): { path: string; args: string[] } {
  return { path: env.PORTABLE_EXECUTABLE_FILE || execPath, args: [HIDDEN_FLAG] };
}

export function readStartAtLogin(app: LoginItemApp, target: { path: string; args: string[] }): boolean {
  const settings = app.getLoginItemSettings(target);
  // executableWillLaunchAtLogin also honours a Task Manager "Disabled" (Windows only); openAtLogin elsewhere.
  return settings.executableWillLaunchAtLogin ?? settings.openAtLogin;
}

export function writeStartAtLogin(app: LoginItemApp, target: { path: string; args: string[] }, enabled: boolean): void {
  app.setLoginItemSettings({ openAtLogin: enabled, path: target.path, args: target.args });
}
