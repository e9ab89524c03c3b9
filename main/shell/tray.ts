/**
 * The tray icon: image, tooltip and menu, rebuilt from TrayState. Windows needs the menu set again after any
 * change (tray.md), so `render` rebuilds all three; it runs on bridge events, debounced, never on a timer.
 */
import path from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';
import { badgeBitmap } from './tray-badge.js';
import { buildTrayMenu, type TrayActions } from './tray-menu.js';
import type { TrayIconState, TrayState } from './tray-state.js';
import type { Rect } from './window-position.js';

export const TRAY_ICON_FILES: Record<TrayIconState, string> = {
  idle: 'tray-idle.ico',
  working: 'tray-working.ico',
  'needs-you': 'tray-needs-you.ico',
  error: 'tray-error.ico',
};

/** Drawn at 32 px and handed over as a 2× image: crisp at 16 px (100 %) and 32 px (200 %) tray sizes. */
const BADGE_SIZE = 32;

export class TrayIcon {
  private readonly tray: Tray;
  private icon: string | undefined;

  constructor(
    private readonly iconsDir: string,
    private readonly actions: TrayActions,
    initial: TrayState,
  ) {
    this.tray = new Tray(this.image(initial.icon, initial.pendingCount));
    this.icon = iconKey(initial);
    // A left click opens the approvals: the one thing a person usually wants from the icon.
    this.tray.on('click', () => actions.openApprovals());
    this.render(initial);
  }

  render(state: TrayState): void {
    if (iconKey(state) !== this.icon) {
      this.tray.setImage(this.image(state.icon, state.pendingCount));
      this.icon = iconKey(state);
    }
    this.tray.setToolTip(state.tooltip);
    this.tray.setContextMenu(
      Menu.buildFromTemplate(buildTrayMenu(state, this.actions) as MenuItemConstructorOptions[]),
    );
  }

  bounds(): Rect | undefined {
    return this.tray.isDestroyed() ? undefined : this.tray.getBounds();
  }

  destroy(): void {
    if (!this.tray.isDestroyed()) this.tray.destroy();
  }

  private image(state: TrayIconState, pendingCount: number): Electron.NativeImage {
    const plain = nativeImage.createFromPath(path.join(this.iconsDir, TRAY_ICON_FILES[state]));
    if (state !== 'needs-you' || pendingCount <= 0) return plain;
    const base = plain.resize({ width: BADGE_SIZE, height: BADGE_SIZE });
    const pixels = badgeBitmap(base.toBitmap(), BADGE_SIZE, pendingCount);
    return nativeImage.createFromBitmap(pixels, { width: BADGE_SIZE, height: BADGE_SIZE, scaleFactor: 2 });
  }
}

/** The image changes with the state and, while questions are open, with their count. */
function iconKey(state: TrayState): string {
  return state.icon === 'needs-you' ? `needs-you:${Math.min(state.pendingCount, 10)}` : state.icon;
}
