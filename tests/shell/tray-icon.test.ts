/**
 * The badged tray icon at every display scale Windows offers (100 % to 300 %), through the fake `electron`
 * module's model of how Electron's Windows tray gets its pixels (fake-electron.ts `windowsTrayIconPixels`:
 * Tray::SetImage → NativeImage::GetHICON(SM_CXSMICON)) and of nativeImage representations elsewhere.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readIco } from '../../main/shell/ico.js';
import type { TrayActions } from '../../main/shell/tray-menu.js';
import type { TrayState } from '../../main/shell/tray-state.js';
import { fake, windowsTrayIconPixels, type FakeNativeImage, type FakeTray } from './fake-electron.js';

vi.mock('electron', () => import('./fake-electron.js'));
const { TrayIcon } = await import('../../main/shell/tray.js');

const ICONS = path.resolve(import.meta.dirname, '..', '..', 'resources', 'icons');
const temp = mkdtempSync(path.join(tmpdir(), 'contactor-tray-test-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const actions = new Proxy({}, { get: () => () => undefined }) as TrayActions;
const state = (pendingCount: number): TrayState => ({
  headline: 'Bridge running on http://127.0.0.1:1',
  running: true,
  icon: pendingCount > 0 ? 'needs-you' : 'idle',
  tooltip: 'Contactor',
  agents: [],
  pendingCount,
  recent: [],
  startAtLogin: false,
  wslSetup: undefined,
});

/** Windows display scales and the small-icon size (SM_CXSMICON) at each: 16 px × scale. */
const WINDOWS_SCALES: [string, number][] = [
  ['100 %', 16], ['125 %', 20], ['150 %', 24], ['200 %', 32], ['250 %', 40], ['300 %', 48],
]; // prettier-ignore

const RED = [0x2e, 0x2e, 0xd9, 0xff];
const pixel = (bgra: Buffer, size: number, x: number, y: number): number[] => [
  ...bgra.subarray((y * size + x) * 4, (y * size + x) * 4 + 4),
];

beforeEach(() => fake.reset());

describe('tray badge on Windows', () => {
  it.each(WINDOWS_SCALES)('at %s the tray gets an icon of its own %i px, not a scaled one', (_scale, size) => {
    const icon = new TrayIcon(ICONS, actions, state(3), { platform: 'win32', tempDir: temp });
    const tray = fake.trays[0] as FakeTray;
    expect(windowsTrayIconPixels(tray.image, size)).toBe(size);
    icon.destroy();
  });

  it('each size carries the badge, drawn at that size; the plain icon is the shipped .ico', () => {
    const icon = new TrayIcon(ICONS, actions, state(0), { platform: 'win32', tempDir: temp });
    const tray = fake.trays[0] as FakeTray;
    expect((tray.image as FakeNativeImage).icoPath).toBe(path.join(ICONS, 'tray-idle.ico'));
    icon.render(state(2));
    const file = (tray.image as FakeNativeImage).icoPath!;
    expect(path.basename(file)).toBe('needs-you-2.ico');
    const images = readIco(readFileSync(file));
    expect(images.map((i) => i.size)).toEqual([16, 20, 24, 32, 40, 48, 64]);
    const shipped = readIco(readFileSync(path.join(ICONS, 'tray-needs-you.ico')));
    for (const [i, { size, bgra }] of images.entries()) {
      // The lower right corner is the badge's red; the upper left is the icon's own pixel, unchanged.
      expect(pixel(bgra, size, size - 1 - Math.floor(size * 0.3), size - 2)).toEqual(RED);
      expect(pixel(bgra, size, 1, 1)).toEqual(pixel(shipped[i]!.bgra, size, 1, 1));
    }
    // Quit removes this run's folder of badges.
    icon.destroy();
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});

describe('tray badge elsewhere (Linux, macOS)', () => {
  it.each([
    [1, 16],
    [1.25, 20],
    [1.5, 24],
    [2, 32],
    [2.5, 40],
    [3, 48],
  ])('at scale %d the image has a representation of %i px', (scale, size) => {
    const icon = new TrayIcon(ICONS, actions, state(3), { platform: 'linux', tempDir: temp });
    const image = fake.trays[0]!.image as FakeNativeImage;
    const rep = image.findRepresentation(scale)!;
    expect({ scaleFactor: rep.scaleFactor, width: rep.width, height: rep.height }).toEqual({
      scaleFactor: scale,
      width: size,
      height: size,
    });
    icon.destroy();
  });
});
