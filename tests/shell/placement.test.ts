import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loginItemTarget, readStartAtLogin, writeStartAtLogin, type LoginItemApp } from '../../main/shell/autostart.js';
import {
  APP_ID,
  DEV_APP_NAME,
  DEV_TOAST_ACTIVATOR_CLSID,
  TOAST_ACTIVATOR_CLSID,
  appLayout,
  windowsIdentity,
} from '../../main/shell/layout.js';
import { approvalWindowPosition } from '../../main/shell/window-position.js';
import { wslCliSetup, wslPathOf } from '../../main/shell/wsl-setup.js';

const size = { width: 440, height: 600 };
const workArea = { x: 0, y: 0, width: 1920, height: 1040 };

describe('approvalWindowPosition', () => {
  it('bottom taskbar: above the icon, centred on it, inside the work area', () => {
    expect(approvalWindowPosition({ x: 1000, y: 1045, width: 24, height: 30 }, workArea, size)).toEqual({
      x: 792,
      y: 432,
    });
  });
  it('an icon near the right edge: pushed left to stay on screen', () => {
    expect(approvalWindowPosition({ x: 1880, y: 1045, width: 24, height: 30 }, workArea, size)).toEqual({
      x: 1472,
      y: 432,
    });
  });
  it('top taskbar: below it', () => {
    expect(approvalWindowPosition({ x: 1000, y: 2, width: 24, height: 30 }, { ...workArea, y: 40 }, size)).toEqual({
      x: 792,
      y: 48,
    });
  });
  it('left taskbar: beside it', () => {
    expect(
      approvalWindowPosition(
        { x: 10, y: 900, width: 24, height: 24 },
        { x: 48, y: 0, width: 1872, height: 1080 },
        size,
      ),
    ).toEqual({ x: 56, y: 472 });
  });
  it('right taskbar: beside it', () => {
    expect(
      approvalWindowPosition(
        { x: 1890, y: 500, width: 24, height: 24 },
        { x: 0, y: 0, width: 1872, height: 1080 },
        size,
      ),
    ).toEqual({ x: 1424, y: 212 });
  });
  it('unknown tray bounds (opened by a second launch): bottom-right corner', () => {
    expect(
      approvalWindowPosition({ x: 0, y: 0, width: 0, height: 0 }, { x: 1920, y: 0, width: 1280, height: 984 }, size),
    ).toEqual({ x: 2752, y: 376 });
  });
  it('a work area smaller than the window: pinned to its top-left margin', () => {
    expect(
      approvalWindowPosition({ x: 100, y: 500, width: 24, height: 24 }, { x: 0, y: 0, width: 300, height: 400 }, size),
    ).toEqual({ x: 8, y: 8 });
  });
});

describe('wslCliSetup', () => {
  it('links the wrapper of the real install into ~/.local/bin', () => {
    expect(wslCliSetup('C:\\Users\\Zoë Smith\\AppData\\Local\\Programs\\contactor')).toBe(
      [
        '# Contactor CLI for WSL (installed in C:\\Users\\Zoë Smith\\AppData\\Local\\Programs\\contactor)',
        'mkdir -p ~/.local/bin',
        'ln -sf "/mnt/c/Users/Zoë Smith/AppData/Local/Programs/contactor/resources/cli/contactor" ~/.local/bin/contactor',
        'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) export PATH="$HOME/.local/bin:$PATH" ;; esac',
        'contactor status',
        '',
      ].join('\n'),
    );
  });
  it('quotes what stays special inside double quotes', () => {
    expect(wslCliSetup('D:\\a$b`c"d\\')).toContain(
      'ln -sf "/mnt/d/a\\$b\\`c\\"d/resources/cli/contactor" ~/.local/bin/contactor',
    );
  });
  it('pasted into a shell twice, works in that same shell', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'contactor-wsl-setup-'));
    try {
      // The wrapper stands in for /mnt/c/…/resources/cli/contactor (no Windows drive here): it says who it is.
      const wrapper = path.join(home, 'install', 'contactor');
      mkdirSync(path.dirname(wrapper));
      writeFileSync(wrapper, '#!/bin/sh\necho "wrapper $*"\n', { mode: 0o755 });
      const text = wslCliSetup('C:\\Program Files\\Contactor')!.replace(
        '"/mnt/c/Program Files/Contactor/resources/cli/contactor"',
        `"${wrapper}"`,
      );
      const r = spawnSync('sh', ['-c', `${text}\n${text}`], {
        env: { HOME: home, PATH: '/usr/bin:/bin' },
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('wrapper status\nwrapper status\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
  it('has nothing to offer for a UNC install', () => {
    expect(wslPathOf('\\\\server\\share\\contactor')).toBeUndefined();
    expect(wslCliSetup('\\\\server\\share\\contactor')).toBeUndefined();
  });
});

describe('autostart', () => {
  it('registers the installed exe, started hidden', () => {
    expect(loginItemTarget('C:\\Users\\me\\AppData\\Local\\Programs\\contactor\\Contactor.exe')).toEqual({
      path: 'C:\\Users\\me\\AppData\\Local\\Programs\\contactor\\Contactor.exe',
      args: ['--hidden'],
    });
  });
  it('reads Windows’ effective state (Task Manager "Disabled" included) and writes only the toggle', () => {
    const written: unknown[] = [];
    const app: LoginItemApp = {
      getLoginItemSettings: () => ({ openAtLogin: true, executableWillLaunchAtLogin: false }),
      setLoginItemSettings: (s) => void written.push(s),
    };
    const target = loginItemTarget('C:\\x\\Contactor.exe');
    expect(readStartAtLogin(app, target)).toBe(false);
    expect(written).toEqual([]);
    writeStartAtLogin(app, target, true);
    expect(written).toEqual([{ openAtLogin: true, path: 'C:\\x\\Contactor.exe', args: ['--hidden'] }]);
  });
});

describe('layout', () => {
  it('packaged: bridge resources and icons from process.resourcesPath, bundles from the asar', () => {
    const l = appLayout({ isPackaged: true, resourcesPath: '/app/resources', appPath: '/app/resources/app.asar' });
    expect(l).toMatchObject({
      resourcesDir: '/app/resources',
      iconsDir: path.join('/app/resources', 'icons'),
      preload: path.join('/app/resources/app.asar', 'out', 'preload', 'index.cjs'),
      rendererHtml: path.join('/app/resources/app.asar', 'out', 'renderer', 'index.html'),
    });
  });
  it('unpackaged: everything under the repo', () => {
    expect(appLayout({ isPackaged: false, resourcesPath: '/electron/resources', appPath: '/repo' }).resourcesDir).toBe(
      path.join('/repo', 'resources'),
    );
  });
  it('packaged: the builder appId and the installed CLSID; dev runs: their own name, AUMID and CLSID', () => {
    expect(windowsIdentity(true, 'C:\\x\\Contactor.exe')).toEqual({ aumid: APP_ID, clsid: TOAST_ACTIVATOR_CLSID });
    const dev = windowsIdentity(false, 'C:\\repo\\node_modules\\electron\\dist\\electron.exe');
    expect(dev).toEqual({
      aumid: 'C:\\repo\\node_modules\\electron\\dist\\electron.exe',
      clsid: DEV_TOAST_ACTIVATOR_CLSID,
      name: DEV_APP_NAME,
    });
    // Electron names the Start-menu shortcut after the app name: a dev run's is another file.
    expect(dev.name).not.toBe('Contactor');
    expect(dev.clsid).not.toBe(TOAST_ACTIVATOR_CLSID);
  });
});
