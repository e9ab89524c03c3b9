/**
 * What the app's windows (approvals, activity) share: the locked-down preferences, one page and nothing
 * else, and who the window is for the IPC sender check (ipc-sender.ts).
 */
import type { BrowserWindow, WebPreferences } from 'electron';
import type { FrameIdentity } from './ipc-sender.js';

/** Security checklist #2–#4, #6 (docs/tutorial/security.md): the defaults, stated so a test can hold them. */
export function ownPageWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** Checklist #13/#14: the window shows our one page and opens nothing else; `onClosed` when it is gone. */
export function keepToOwnPage(win: BrowserWindow, onClosed: () => void): void {
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.on('closed', onClosed);
}

/** The window's WebContents and main frame; undefined once it is gone. */
export function frameIdentityOf(win: BrowserWindow | undefined): FrameIdentity | undefined {
  if (!win || win.isDestroyed()) return undefined;
  const main = win.webContents.mainFrame;
  return { webContentsId: win.webContents.id, processId: main.processId, routingId: main.routingId };
}
