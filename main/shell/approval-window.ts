/**
 * The approval window: a small frameless popup by the tray, created on demand. It is always shown with
 * `showInactive()`: it must never take keyboard focus from what the user is typing in, or a stray Enter
 * could answer a question (electron-windows.md §1, "Recommended approval design").
 */
import { BrowserWindow, screen } from 'electron';
import { IPC_CHANNELS } from '../schema/ipc.js';
import type { FrameIdentity } from './ipc-sender.js';
import { frameIdentityOf, keepToOwnPage, ownPageWebPreferences } from './own-page-window.js';
import { approvalWindowPosition, type Rect } from './window-position.js';

export const APPROVAL_WINDOW_SIZE = { width: 440, height: 600 } as const;

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
      webPreferences: ownPageWebPreferences(this.opts.preload),
    });
    keepToOwnPage(win, () => {
      if (this.window === win) this.window = undefined;
    });
    win.once('ready-to-show', () => {
      this.place(win);
      win.showInactive();
    });
    this.window = win;
    void win.loadFile(this.opts.rendererHtml);
  }

  /** The window's WebContents and main frame, for the IPC sender check (approval-ipc.ts). */
  ownFrame(): FrameIdentity | undefined {
    return frameIdentityOf(this.window);
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
