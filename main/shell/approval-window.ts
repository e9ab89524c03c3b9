/**
 * The approval window: a small frameless popup by the tray, created on demand. It is always shown with
 * `showInactive()`: it must never take keyboard focus from what the user is typing in, or a stray Enter
 * could answer a question (electron-windows.md §1, "Recommended approval design").
 */
import { BrowserWindow, screen, type WebPreferences } from 'electron';
import { IPC_CHANNELS } from '../schema/ipc.js';
import type { FrameIdentity } from './approval-ipc.js';
import { approvalWindowPosition, type Rect } from './window-position.js';

export const APPROVAL_WINDOW_SIZE = { width: 440, height: 600 } as const;

/** Security checklist #2–#4, #6 (docs/tutorial/security.md): the defaults, stated so a test can hold them. */
export function approvalWebPreferences(preload: string): WebPreferences {
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

export class ApprovalWindow {
  private window: BrowserWindow | undefined;

  constructor(private readonly opts: { preload: string; rendererHtml: string; trayBounds: () => Rect | undefined }) {}

  /** Shows the window (creating it if needed) without activating it. */
  show(): void {
    const existing = this.window;
    if (existing && !existing.isDestroyed()) {
      this.place(existing);
      existing.showInactive();
      return;
    }
    const win = new BrowserWindow({
      ...APPROVAL_WINDOW_SIZE,
      show: false,
      frame: false,
      resizable: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      alwaysOnTop: true,
      skipTaskbar: true,
      title: 'Contactor approvals',
      backgroundColor: '#1f2227',
      webPreferences: approvalWebPreferences(this.opts.preload),
    });
    // Checklist #13/#14: the window shows our one page and opens nothing else.
    win.webContents.on('will-navigate', (event) => event.preventDefault());
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.once('ready-to-show', () => {
      this.place(win);
      win.showInactive();
    });
    win.on('closed', () => {
      if (this.window === win) this.window = undefined;
    });
    this.window = win;
    void win.loadFile(this.opts.rendererHtml);
  }

  /** The window's WebContents and main frame, for the IPC sender check (approval-ipc.ts). */
  ownFrame(): FrameIdentity | undefined {
    const win = this.window;
    if (!win || win.isDestroyed()) return undefined;
    const main = win.webContents.mainFrame;
    return { webContentsId: win.webContents.id, processId: main.processId, routingId: main.routingId };
  }

  /** Tells an open window to fetch the list again. */
  notifyChanged(): void {
    const win = this.window;
    if (win && !win.isDestroyed()) win.webContents.send(IPC_CHANNELS.changed);
  }

  destroy(): void {
    if (this.window && !this.window.isDestroyed()) this.window.destroy();
    this.window = undefined;
  }

  private place(win: BrowserWindow): void {
    const tray = this.opts.trayBounds() ?? { x: 0, y: 0, width: 0, height: 0 };
    const display = tray.width > 0 ? screen.getDisplayMatching(tray) : screen.getPrimaryDisplay();
    const { x, y } = approvalWindowPosition(tray, display.workArea, APPROVAL_WINDOW_SIZE);
    win.setPosition(x, y, false);
  }
}
