/**
 * The activity window: every task on this machine, live (docs/contract.md#activity). A normal window the
 * person opens from the tray or the approval window; it reads only through its IPC (activity-ipc.ts) and
 * is told when the feed has news at most every CHANGED_EVERY_MS, however fast agents write.
 */
import { BrowserWindow } from 'electron';
import { ACTIVITY_CHANNELS } from '../schema/ipc.js';
import type { FrameIdentity } from './ipc-sender.js';
import { frameIdentityOf, keepToOwnPage, ownPageWebPreferences } from './own-page-window.js';

export const ACTIVITY_WINDOW_SIZE = { width: 1100, height: 720 } as const;
/** How often an open window is nudged at most: it then pulls every event since its cursor in one go. */
export const CHANGED_EVERY_MS = 100;

export class ActivityWindow {
  private window: BrowserWindow | undefined;
  private nudge: ReturnType<typeof setTimeout> | undefined;
  /** Until the page has loaded nothing listens: the task last asked for waits here (the latest press wins). */
  private loading: { taskId?: string | undefined } | undefined;

  constructor(private readonly opts: { preload: string; rendererHtml: string }) {}

  /**
   * Opens the window (or brings it forward), showing `taskId` when given. A new page is told once it has loaded:
   * `loadFile` resolves at `did-finish-load` (docs/api/web-contents.md `contents.loadURL`), when its script,
   * which listens for the message, has run.
   */
  show(taskId?: string): void {
    const existing = this.window;
    if (existing && !existing.isDestroyed()) {
      existing.show();
      existing.focus();
      if (!taskId) return;
      if (this.loading) this.loading.taskId = taskId;
      else existing.webContents.send(ACTIVITY_CHANNELS.showTask, taskId);
      return;
    }
    const win = new BrowserWindow({
      ...ACTIVITY_WINDOW_SIZE,
      minWidth: 640,
      minHeight: 400,
      show: false,
      title: 'Contactor activity',
      backgroundColor: '#1f2227',
      // The same locked-down preferences as the approval window (security checklist #2–#4, #6).
      webPreferences: ownPageWebPreferences(this.opts.preload),
    });
    keepToOwnPage(win, () => {
      if (this.window === win) this.window = undefined;
    });
    win.once('ready-to-show', () => win.show());
    this.window = win;
    const loading: { taskId?: string | undefined } = { taskId };
    this.loading = loading;
    const loaded = (): void => {
      if (this.loading === loading) this.loading = undefined;
    };
    void win.loadFile(this.opts.rendererHtml).then(
      () => {
        loaded();
        if (loading.taskId && !win.isDestroyed()) win.webContents.send(ACTIVITY_CHANNELS.showTask, loading.taskId);
      },
      loaded, // a page that failed to load shows nothing to select in
    );
  }

  /** The window's WebContents and main frame, for the IPC sender check (ipc-sender.ts). */
  ownFrame(): FrameIdentity | undefined {
    return frameIdentityOf(this.window);
  }

  /** The open window, to parent a dialog to. */
  browserWindow(): BrowserWindow | undefined {
    const win = this.window;
    return win && !win.isDestroyed() ? win : undefined;
  }

  /** The feed has news: tell an open window, coalescing a burst into one nudge. */
  notifyChanged(): void {
    if (this.nudge || !this.window || this.window.isDestroyed()) return;
    this.nudge = setTimeout(() => {
      this.nudge = undefined;
      const win = this.window;
      if (win && !win.isDestroyed()) win.webContents.send(ACTIVITY_CHANNELS.changed);
    }, CHANGED_EVERY_MS);
  }

  destroy(): void {
    this.loading = undefined;
    if (this.nudge) clearTimeout(this.nudge);
    this.nudge = undefined;
    if (this.window && !this.window.isDestroyed()) this.window.destroy();
    this.window = undefined;
  }
}
