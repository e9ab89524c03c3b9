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

/** The per-user NSIS install keeps process.execPath across updates (the only Windows build we ship). */
export function loginItemTarget(execPath: string): { path: string; args: string[] } {
  return { path: execPath, args: [HIDDEN_FLAG] };
}

export function readStartAtLogin(app: LoginItemApp, target: { path: string; args: string[] }): boolean {
  const settings = app.getLoginItemSettings(target);
  // executableWillLaunchAtLogin also honours a Task Manager "Disabled" (Windows only); openAtLogin elsewhere.
  return settings.executableWillLaunchAtLogin ?? settings.openAtLogin;
}

export function writeStartAtLogin(app: LoginItemApp, target: { path: string; args: string[] }, enabled: boolean): void {
  app.setLoginItemSettings({ openAtLogin: enabled, path: target.path, args: target.args });
}
