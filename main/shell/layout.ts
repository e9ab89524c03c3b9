/**
 * Where the desktop app finds its files, packaged or not, and the identity Windows knows it by.
 *
 * Packaged (electron-builder.yml): the bundles are in app.asar (`out/…`); everything under the repo's
 * resources/ is shipped as extraResources straight into `process.resourcesPath`, so the bridge's
 * `resourcesDir` (config.example.yaml, agents/echo-agent.mjs) and the icons are plain files there.
 * Unpackaged (`electron .` after `node scripts/build.mjs`): the same names under the repo.
 */
import path from 'node:path';

/** Equals electron-builder's `appId`: the NSIS installer stamps it on the Start-menu shortcut. */
export const APP_ID = 'dev.contactor.app';

/**
 * Fixed so toasts in the Action Center can reactivate the app after a restart (the default is random per
 * run). Electron registers HKCU\Software\Classes\CLSID\{…}\LocalServer32 for it.
 */
export const TOAST_ACTIVATOR_CLSID = '{6B1A4C3E-2F0D-4C8B-9E57-3D9A0C1F7E42}';

/**
 * Unpackaged (`electron .`) runs use their own name and CLSID. Electron writes a Start-menu shortcut named
 * after the app (`<name>.lnk`) and rewrites it when it points at another exe, and points the CLSID's
 * LocalServer32 at the running exe (electron/electron shell/browser/notifications/win/windows_toast_activator.cc
 * EnsureShortcut, ExistingShortcutValid, EnsureCLSIDRegistry): with the installed app's name and CLSID a dev
 * run would re-target the installed app's shortcut and toast activator.
 */
export const DEV_TOAST_ACTIVATOR_CLSID = '{0E9A5F21-7C44-4B9D-A1C3-5D2E8F6B7A10}';
export const DEV_APP_NAME = 'Contactor Dev';

/** The identity Windows knows this run by: AUMID, toast activator CLSID and (dev only) the app name. */
export function windowsIdentity(
  isPackaged: boolean,
  execPath: string,
): { aumid: string; clsid: string; name?: string } {
  return isPackaged
    ? { aumid: APP_ID, clsid: TOAST_ACTIVATOR_CLSID }
    : { aumid: execPath, clsid: DEV_TOAST_ACTIVATOR_CLSID, name: DEV_APP_NAME };
}

export interface AppLayout {
  /** Passed to createBridge as `resourcesDir`. */
  resourcesDir: string;
  iconsDir: string;
  preload: string;
  rendererHtml: string;
  /** The activity window's preload and page. */
  activityPreload: string;
  activityHtml: string;
}

export function appLayout(opts: { isPackaged: boolean; resourcesPath: string; appPath: string }): AppLayout {
  const resourcesDir = opts.isPackaged ? opts.resourcesPath : path.join(opts.appPath, 'resources');
  const rendererHtml = path.join(opts.appPath, 'out', 'renderer', 'index.html');
  return {
    resourcesDir,
    iconsDir: path.join(resourcesDir, 'icons'),
    preload: path.join(opts.appPath, 'out', 'preload', 'index.cjs'),
    rendererHtml,
    activityPreload: path.join(opts.appPath, 'out', 'preload', 'activity.cjs'),
    activityHtml: path.join(opts.appPath, 'out', 'renderer', 'activity.html'),
  };
}

/**
 * Electron's own folder (userData: its Chromium profile and, inside it, the single-instance lock). Electron's
 * default is %APPDATA%\<app name>: `contactor` for both the installed and a dev build, which is also the folder
 * config.yaml lived in before it moved to %USERPROFILE%\.contactor and the one an uninstall with `--delete-app-data` removes (electron-builder
 * templates/nsis/uninstaller.nsh `RMDir /r "$APPDATA\${APP_FILENAME}"`). So each build gets its own folder under
 * %LOCALAPPDATA%\Contactor: a dev run has its own lock and runs beside the installed app, and Chromium's cache
 * stays out of the roaming profile and out of the config folder.
 */
export function userDataDir(isPackaged: boolean, env: Record<string, string | undefined>, home: string): string {
  const local = env.LOCALAPPDATA ?? path.win32.join(home, 'AppData', 'Local');
  return path.win32.join(local, 'Contactor', isPackaged ? 'app' : 'dev');
}
