/**
 * The tray icon: image, tooltip and menu, rebuilt from TrayState. Windows needs the menu set again after any
 * change (tray.md), so `render` rebuilds all three; it runs on bridge events, debounced, never on a timer.
 */
import path from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';
import { buildTrayMenu, type TrayActions } from './tray-menu.js';
import type { TrayIconState, TrayState } from './tray-state.js';
import type { Rect } from './window-position.js';

export const TRAY_ICON_FILES: Record<TrayIconState, string> = {
  idle: 'tray-idle.ico',
  working: 'tray-working.ico',
  'needs-you': 'tray-needs-you.ico',
  error: 'tray-error.ico',
};

export class TrayIcon {
  private readonly tray: Tray;
  private icon: TrayIconState | undefined;

  constructor(
    private readonly iconsDir: string,
    private readonly actions: TrayActions,
    initial: TrayState,
  ) {
    this.tray = new Tray(this.image(initial.icon));
    this.icon = initial.icon;
    // A left click opens the approvals: the one thing a person usually wants from the icon.
    this.tray.on('click', () => actions.openApprovals());
    this.render(initial);
  }

  render(state: TrayState): void {
    if (state.icon !== this.icon) {
      this.tray.setImage(this.image(state.icon));
      this.icon = state.icon;
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

  private image(state: TrayIconState): Electron.NativeImage {
    return nativeImage.createFromPath(path.join(this.iconsDir, TRAY_ICON_FILES[state]));
  }
}
