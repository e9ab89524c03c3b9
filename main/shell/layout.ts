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

export interface AppLayout {
  /** Passed to createBridge as `resourcesDir`. */
  resourcesDir: string;
  iconsDir: string;
  preload: string;
  rendererHtml: string;
}

export function appLayout(opts: { isPackaged: boolean; resourcesPath: string; appPath: string }): AppLayout {
  const resourcesDir = opts.isPackaged ? opts.resourcesPath : path.join(opts.appPath, 'resources');
  const rendererHtml = path.join(opts.appPath, 'out', 'renderer', 'index.html');
  return {
    resourcesDir,
    iconsDir: path.join(resourcesDir, 'icons'),
    preload: path.join(opts.appPath, 'out', 'preload', 'index.cjs'),
    rendererHtml,
  };
}

/** Unpackaged runs use the exe's path (docs/tutorial/notifications.md), so they never borrow the installed app's shortcut. */
export function appUserModelId(isPackaged: boolean, execPath: string): string {
  return isPackaged ? APP_ID : execPath;
}
