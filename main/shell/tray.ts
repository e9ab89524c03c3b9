/**
 * The tray icon: image, tooltip and menu, rebuilt from TrayState. Windows needs the menu set again after any
 * change (tray.md), so `render` rebuilds all three; it runs on bridge events, debounced, never on a timer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';
import { premultiplied, readIco, writeIco } from './ico.js';
import { badgeBitmap, badgeText } from './tray-badge.js';
import { buildTrayMenu, type TrayActions } from './tray-menu.js';
import type { TrayIconState, TrayState } from './tray-state.js';
import type { Rect } from './window-position.js';

export const TRAY_ICON_FILES: Record<TrayIconState, string> = {
  idle: 'tray-idle.ico',
  working: 'tray-working.ico',
  'needs-you': 'tray-needs-you.ico',
  error: 'tray-error.ico',
};

/** Windows' small icon is 16 px at 100 % (SM_CXSMICON): the tray's image size at a display scale is 16 × scale. */
const TRAY_DIP = 16;

export interface TrayIconOptions {
  /** process.platform unless a test says otherwise: how the badged image reaches Electron differs on Windows. */
  platform: NodeJS.Platform;
  /** Where the badged .ico files go on Windows (Electron's `app.getPath('temp')`); a folder of this run's own. */
  tempDir: string;
}

export class TrayIcon {
  private readonly tray: Tray;
  private icon: string | undefined;
  private badgeDir: string | undefined;

  constructor(
    private readonly iconsDir: string,
    private readonly actions: TrayActions,
    initial: TrayState,
    private readonly opts: TrayIconOptions,
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
    if (this.badgeDir) rmSync(this.badgeDir, { recursive: true, force: true });
    this.badgeDir = undefined;
  }

  private image(state: TrayIconState, pendingCount: number): Electron.NativeImage {
    const file = path.join(this.iconsDir, TRAY_ICON_FILES[state]);
    if (state !== 'needs-you' || pendingCount <= 0) return nativeImage.createFromPath(file);
    // The badge on every size the icon has (16, 20, 24, 32, 40, 48 px: 100 % to 300 %, and 64), each drawn from
    // that size's own pixels, so the tray never scales a badged image up or down.
    const badged = readIco(readFileSync(file)).map(({ size, bgra }) => ({
      size,
      bgra: badgeBitmap(bgra, size, pendingCount),
    }));
    // Windows takes the size it needs only from an .ico (ico.ts says why): representations would all be
    // answered with the 1× one, blurry at 250–300 %.
    if (this.opts.platform === 'win32') return nativeImage.createFromPath(this.writeBadgeIco(pendingCount, badged));
    // Elsewhere the tray asks the image for the representation of the display's scale.
    const image = nativeImage.createEmpty();
    for (const { size, bgra } of badged)
      image.addRepresentation({ scaleFactor: size / TRAY_DIP, width: size, height: size, buffer: premultiplied(bgra) });
    return image;
  }

  /** `needs-you-<n>.ico` in this run's own folder under temp, written when the count changes; removed at quit. */
  private writeBadgeIco(pendingCount: number, images: Parameters<typeof writeIco>[0]): string {
    this.badgeDir ??= mkdtempSync(path.join(this.opts.tempDir, 'contactor-tray-'));
    const name = `needs-you-${badgeText(pendingCount) === '+' ? 'more' : badgeText(pendingCount)}.ico`;
    const file = path.join(this.badgeDir, name);
    writeFileSync(file, writeIco(images));
    return file;
  }
}

/** The image changes with the state and, while questions are open, with their count. */
function iconKey(state: TrayState): string {
  return state.icon === 'needs-you' ? `needs-you:${Math.min(state.pendingCount, 10)}` : state.icon;
}
