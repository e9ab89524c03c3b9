/**
 * The desktop shell end to end, with a fake `electron` module and a real bridge (echo demo agent + fake ACP
 * agent as child processes, HTTP on 127.0.0.1:0): startup order, single instance, tray, autostart,
 * notifications answering real questions, IPC checks, quit.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTIVITY_CHANNELS, IPC_CHANNELS, OPEN_ACTIVITY_CHANNEL } from '../../main/schema/ipc.js';
import type { DesktopShell } from '../../main/shell/app.js';
import type { MenuTemplateItem } from '../../main/shell/tray-menu.js';
import { desktopConfig, rpc, testEnv, type DesktopConfig } from './desktop-config.js';
import {
  activateFromActionCenter,
  app,
  powerMonitor,
  endWindowsSession,
  fake,
  fakeEvent,
  pressLiveToast,
  windowsTrayIconPixels,
  type FakeBrowserWindow,
  type FakeNativeImage,
  type FakeNotification,
  type FakeTray,
} from './fake-electron.js';
import { deliver, press } from './windows-toast-host.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

vi.mock('electron', () => import('./fake-electron.js'));

const { launch } = await import('../../main/shell/app.js');

const textOf = (parts: { kind: string; text?: string }[]): string => parts.map((p) => p.text ?? '').join('');

/** The app as autostart runs it on Windows (`Contactor.exe --hidden`), on the test's own config. */
const launchHiddenOnWindows = (cfg: DesktopConfig) =>
  launch({
    argv: ['Contactor.exe', '--hidden'],
    env: testEnv(),
    platform: 'win32',
    bridge: { configPath: cfg.configPath },
  });
const { TOAST_ACTIVATOR_CLSID, DEV_APP_NAME, DEV_TOAST_ACTIVATOR_CLSID } = await import('../../main/shell/layout.js');

const WAIT = { timeout: TEST_TIMEOUT_MS, interval: 25 };

/** The approval windows: not the hidden one that only hears `session-end` (session-end.ts, focusable: false). */
const approvalWindows = (): FakeBrowserWindow[] => fake.windows.filter((w) => w.options.focusable !== false);
/** Toast ids are `<taskId>.<n>` (notifier.ts toastIdFor). */
const isToastOf = (n: FakeNotification, taskId: string): boolean => (n.options.id ?? '').startsWith(`${taskId}.`);

/** Temp dirs are removed after the whole file: the bridge log is written asynchronously and may trail a stop. */
const dirs: DesktopConfig[] = [];
afterAll(async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const d of dirs) d.cleanup();
});

async function quitAndWait(): Promise<void> {
  app.quit();
  await vi.waitFor(() => expect(fake.quitted).toBe(true), WAIT);
}

function menuItem(tray: FakeTray, label: string | RegExp): MenuTemplateItem {
  const item = (tray.template as MenuTemplateItem[]).find((i) =>
    typeof label === 'string' ? i.label === label : label.test(i.label ?? ''),
  );
  if (!item)
    throw new Error(
      `no menu item ${String(label)} in ${JSON.stringify((tray.template as MenuTemplateItem[]).map((i) => i.label))}`,
    );
  return item;
}

describe('startup', () => {
  let cfg: DesktopConfig | undefined;
  afterEach(async () => {
    if (!fake.quitted && fake.trays.length) await quitAndWait();
    if (cfg) dirs.push(cfg);
  });

  it('takes the lock, sets the AUMID and the toast CLSID, waits for ready, starts the bridge, then shows the tray', async () => {
    fake.reset();
    fake.isPackaged = true;
    const resourcesPath = process.resourcesPath;
    (process as { resourcesPath?: string }).resourcesPath = path.resolve('resources');
    cfg = desktopConfig();
    let bridgeFileAtTray = false;
    const dataDir = cfg.dataDir;
    fake.onTray = () => (bridgeFileAtTray = existsSync(path.join(dataDir, 'bridge.json')));
    try {
      const shell = await launch({
        argv: ['Contactor.exe'],
        env: testEnv({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }),
        platform: 'win32',
        bridge: { configPath: cfg.configPath },
      });
      expect(shell).toBeDefined();
      expect(fake.calls.filter((c) => c !== 'activator').slice(0, 8)).toEqual([
        // Electron's own folder before the lock Chromium keeps in it, never the config folder (layout.ts).
        'path:userData=C:\\Users\\u\\AppData\\Local\\Contactor\\app',
        'lock',
        'aumid:dev.contactor.app',
        `clsid:${TOAST_ACTIVATOR_CLSID}`,
        'ready',
        // The presenter right after ready, on every start: it registers the toast activator (fake-electron.ts).
        'handleActivation',
        'presenter',
        'tray',
      ]);
      expect(bridgeFileAtTray).toBe(true);
      expect(shell!.host.bridge?.config.path).toBe(cfg.configPath);
      // Packaged: the bridge's resources (echo agent, config example) and icons come from process.resourcesPath.
      expect((fake.trays[0]!.image as { file: string }).file).toBe(path.resolve('resources', 'icons', 'tray-idle.ico'));
      // Not started with --hidden: the approvals window opens, inactive.
      expect(approvalWindows()).toHaveLength(1);
      // Never written at startup: that would undo a user's "Disabled" in Task Manager.
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
    } finally {
      (process as { resourcesPath?: string }).resourcesPath = resourcesPath;
    }
  });

  /**
   * An update re-creates Contactor.lnk with the AUMID only (electron-builder include/installer.nsh addStartMenuLink:
   * CreateShortCut + WinShell::SetLnkAUMI), so toast buttons in the Action Center reach nothing until Electron
   * writes the toast activator CLSID back: NotificationActivator::RegisterActivator → EnsureShortcut, which rewrites
   * a shortcut without it (windows_toast_activator.cc ExistingShortcutValid), and EnsureCLSIDRegistry. That runs
   * when the notification presenter is created. The first start after an update is `Contactor.exe --updated`
   * (electron-builder common.nsh StartApp) on a data dir whose first run is long past: the presenter must be
   * created there too, not only by the first-run notice or the first toast.
   */
  it('the first start after an update (--updated) creates the presenter at once, so Electron re-ensures the shortcut’s CLSID', async () => {
    fake.reset();
    cfg = desktopConfig();
    const resourcesPath = process.resourcesPath;
    (process as { resourcesPath?: string }).resourcesPath = path.resolve('resources');
    const start = async (argv: string[]) => {
      fake.isPackaged = true;
      return launch({ argv, env: testEnv(), platform: 'win32', bridge: { configPath: cfg!.configPath } });
    };
    try {
      // The install's own first start, long ago: its first-run notice is behind it.
      await start(['Contactor.exe', '--hidden']);
      await quitAndWait();
      fake.reset();
      await start(['Contactor.exe', '--updated']);
      const calls = fake.calls.filter((c) => c !== 'activator');
      expect(calls.indexOf('presenter')).toBeGreaterThan(calls.indexOf('ready'));
      expect(calls.indexOf('presenter')).toBeLessThan(calls.indexOf('tray'));
      // No toast was needed for it: nothing was shown.
      expect(fake.notifications).toEqual([]);
    } finally {
      (process as { resourcesPath?: string }).resourcesPath = resourcesPath;
    }
  });

  it('unpackaged: its own name, AUMID and CLSID, so dev runs never re-target the installed shortcut or activator', async () => {
    fake.reset();
    cfg = desktopConfig();
    await launch({
      argv: ['electron', '.', '--hidden'],
      env: testEnv({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }),
      platform: 'win32',
      bridge: { configPath: cfg.configPath },
    });
    // Its own name and userData before the lock: a dev run is a separate instance beside the installed app.
    expect(fake.calls.slice(0, 5)).toEqual([
      `name:${DEV_APP_NAME}`,
      'path:userData=C:\\Users\\u\\AppData\\Local\\Contactor\\dev',
      'lock',
      `aumid:${process.execPath}`,
      `clsid:${DEV_TOAST_ACTIVATOR_CLSID}`,
    ]);
    expect(approvalWindows()).toHaveLength(0);
  });

  it('off Windows the main process starts without the win32-only calls (electron.d.ts @platform win32)', async () => {
    fake.reset();
    cfg = desktopConfig();
    const shell = await launch({
      argv: ['electron', '.', '--hidden'],
      env: testEnv(),
      platform: 'linux',
      bridge: { configPath: cfg.configPath },
    });
    expect(shell?.host.bridge).toBeDefined();
    // No presenter at start off Windows: there is no toast activator to register.
    expect(fake.calls.slice(0, 3)).toEqual(['lock', 'ready', 'tray']);
  });

  it('the first start says where the tray icon lives and how to pin it; later starts do not', async () => {
    fake.reset();
    cfg = desktopConfig();
    const start = () =>
      launch({ argv: ['Contactor.exe', '--hidden'], env: testEnv(), bridge: { configPath: cfg!.configPath } });
    await start();
    const hints = () => fake.notifications.filter((n) => n.options.title === 'Contactor is running in the tray');
    expect(hints()).toHaveLength(1);
    expect(hints()[0]!.options.body).toMatch(/hidden area .*Other system tray icons/);
    expect(hints()[0]!.show).toHaveBeenCalled();
    await quitAndWait();
    fake.reset();
    await start();
    expect(hints()).toHaveLength(0);
  });

  it('a config broken at start turns the tray to the error state; fixing it and reloading brings the bridge back', async () => {
    fake.reset();
    cfg = desktopConfig();
    cfg.write('agents: [not, a, map]\n');
    const shell = (await launch({
      argv: ['Contactor.exe', '--hidden'],
      env: testEnv(),
      bridge: { configPath: cfg.configPath },
    }))!;
    const tray = fake.trays[0]!;
    expect(shell.host.error).toBeDefined();
    shell.refresh();
    expect((tray.image as { file: string }).file).toMatch(/tray-error\.ico$/);
    expect(menuItem(tray, /^Bridge stopped: /).label).toContain(cfg.configPath);
    expect(tray.tooltip.length).toBeLessThanOrEqual(127);
    expect(menuItem(tray, 'No agents while the bridge is stopped').enabled).toBe(false);

    cfg.write();
    menuItem(tray, 'Reload config').click!();
    await vi.waitFor(() => expect(shell.host.bridge).toBeDefined(), WAIT);
    shell.refresh();
    expect((tray.image as { file: string }).file).toMatch(/tray-idle\.ico$/);
    const b = shell.host.bridge!;
    expect(
      (await rpc({ url: b.url, token: b.token }, 'message/send', { agent: 'echo', text: 'hi' })).status.state,
    ).toBe('completed');
  });

  it('a second launch (lock not granted) quits at once: no bridge, no tray', async () => {
    fake.reset();
    fake.lockGranted = false;
    cfg = desktopConfig();
    const shell = await launch({ argv: ['Contactor.exe'], env: testEnv(), bridge: { configPath: cfg.configPath } });
    expect(shell).toBeUndefined();
    expect(fake.calls).toEqual(['lock', 'quit']);
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
  });
});

describe('running app', () => {
  let cfg: DesktopConfig;
  let shell: DesktopShell;
  let tray: FakeTray;
  const bridge = () => {
    const b = shell.host.bridge!;
    return { url: b.url, token: b.token, dispatcher: b.server.dispatcher };
  };
  const notificationFor = (taskId: string): FakeNotification | undefined =>
    fake.notifications.filter((n) => isToastOf(n, taskId)).at(-1);
  const rendererUrl = (): string => approvalWindows()[0]!.loadedFile!;
  /** An IpcMainInvokeEvent from the approval window's own page (electron.d.ts: sender + senderFrame). */
  const ownSender = () => ({
    sender: approvalWindows()[0]!.webContents,
    senderFrame: approvalWindows()[0]!.webContents.mainFrame,
  });

  beforeAll(async () => {
    fake.reset();
    cfg = desktopConfig();
    shell = (await launchHiddenOnWindows(cfg))!;
    tray = fake.trays[0]!;
  });
  afterAll(async () => {
    await quitAndWait();
    // Graceful quit: the bridge removed its discovery file and released its lock.
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
    expect(tray.destroyed).toBe(true);
    dirs.push(cfg);
  });

  it('shows the idle tray with the agents and every menu entry', () => {
    expect(tray.tooltip).toBe('Contactor: 2 agents');
    const labels = (tray.template as MenuTemplateItem[]).map((i) => i.label ?? '—');
    expect(labels).toEqual([
      `Bridge running on ${bridge().url}`, '—', 'echo: idle', 'fake: idle', '—', 'Approvals (0)', 'Activity', 'Recent tasks', '—',
      'Start at login', 'Open config', 'Reload config', 'Copy WSL CLI setup', 'Open logs', '—', 'Quit Contactor',
    ]); // prettier-ignore
  });

  it('a second launch shows the approvals window, inactive, with the locked-down webPreferences', () => {
    app.emit('second-instance', fakeEvent(), ['Contactor.exe'], cfg.root, {});
    const win = approvalWindows().at(-1) as FakeBrowserWindow;
    expect(win.options).toMatchObject({ frame: false, alwaysOnTop: true, skipTaskbar: true, show: false });
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect((win.options.webPreferences as { preload: string }).preload).toMatch(/out[\\/]preload[\\/]index\.cjs$/);
    expect(rendererUrl()).toMatch(/out[\\/]renderer[\\/]index\.html$/);
    win.emit('ready-to-show');
    expect(win.showInactive).toHaveBeenCalledTimes(1);
    expect(win.show).not.toHaveBeenCalled();
    expect(win.focus).not.toHaveBeenCalled();
    // Above the tray icon (1800,1040), inside the 1920×1040 work area.
    expect(win.setPosition).toHaveBeenCalledWith(1472, 432, false);
    // Navigation and new windows are refused.
    const nav = fakeEvent();
    win.webContents.emit('will-navigate', nav, 'https://example.com/');
    expect(nav.defaultPrevented).toBe(true);
    expect(win.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    // A third launch reuses the window.
    app.emit('second-instance', fakeEvent(), ['Contactor.exe'], cfg.root, {});
    expect(approvalWindows()).toHaveLength(1);
    expect(win.showInactive).toHaveBeenCalledTimes(2);
  });

  it('writes the login item only when the user toggles it, for the hidden start', () => {
    expect(app.setLoginItemSettings).not.toHaveBeenCalled();
    menuItem(tray, 'Start at login').click!();
    expect(app.setLoginItemSettings).toHaveBeenCalledTimes(1);
    expect(app.setLoginItemSettings).toHaveBeenCalledWith({
      openAtLogin: true,
      path: process.execPath,
      args: ['--hidden'],
    });
    expect(menuItem(tray, 'Start at login').checked).toBe(true);
    menuItem(tray, 'Start at login').click!();
    expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({
      openAtLogin: false,
      path: process.execPath,
      args: ['--hidden'],
    });
    expect(menuItem(tray, 'Start at login').checked).toBe(false);
  });

  it('a decision gets a toast with its options; pressing one answers it and the task completes', async () => {
    const task = await rpc(bridge(), 'message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
    expect(task.status.state).toBe('input-required');
    await vi.waitFor(() => expect(notificationFor(task.id)).toBeDefined(), WAIT);
    const toast = notificationFor(task.id)!;
    expect(toast.options.title).toBe('echo asks: Which one should I go with: YAML or TOML?');
    expect(toast.options.body).toContain('Recommended: YAML');
    expect(toast.options.actions).toEqual([
      { type: 'button', text: '★ YAML' },
      { type: 'button', text: 'TOML' },
    ]);
    expect(toast.show).toHaveBeenCalled();

    // The tray shows it too, whether or not the toast got through (Focus mode).
    toast.emit('failed', fakeEvent(), 'toasts are off');
    shell.refresh();
    expect(tray.tooltip).toContain('1 waiting for you');
    // The count on the icon itself: a badge drawn on the needs-you icon (tray-badge.ts).
    // On Windows an .ico of this run's own, so the tray gets its exact size at any scale (tray-icon.test.ts).
    const badged = tray.image as FakeNativeImage;
    expect(badged.icoPath).toMatch(/contactor-tray-[^\\/]+[\\/]needs-you-1\.ico$/);
    expect(windowsTrayIconPixels(badged, 48)).toBe(48);
    expect(menuItem(tray, 'Approvals (1)')).toBeDefined();
    expect(menuItem(tray, /^echo: /).label).toBe('echo: waiting for you');

    toast.emit('action', { actionIndex: 1, selectionIndex: -1 }, 1, -1);
    await vi.waitFor(
      async () => expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    const done = await rpc(bridge(), 'tasks/get', { id: task.id });
    expect(done.metadata.answeredBy).toBe('person (notification)');
    expect(JSON.stringify(done.artifacts)).toContain('Going with TOML. Done.');
    expect(toast.close).toHaveBeenCalled();
  });

  it('a risky permission toast offers only "Review…", which opens the window; the window answers it', async () => {
    const task = await rpc(bridge(), 'message/send', { agent: 'fake', text: 'permission' });
    expect(task.status.state).toBe('input-required');
    await vi.waitFor(() => expect(notificationFor(task.id)).toBeDefined(), WAIT);
    const toast = notificationFor(task.id)!;
    expect(toast.options.title).toBe('fake wants to: write');
    expect(toast.options.body).toBe(cfg.root);
    expect(toast.options.actions).toEqual([{ type: 'button', text: 'Review…' }]);
    const show = vi.spyOn(shell.approvals, 'show');
    toast.emit('action', { actionIndex: 0, selectionIndex: -1 }, 0, -1);
    expect(show).toHaveBeenCalledTimes(1);
    show.mockRestore();
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('input-required');

    const answer = fake.ipcHandlers.get(IPC_CHANNELS.answer)!;
    const own = ownSender();
    expect(await answer(own, { taskId: task.id, answer: 'allow' })).toEqual({
      ok: true,
      taskId: task.id,
      state: 'working',
    });
    await vi.waitFor(
      async () => expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    expect(await answer(own, { taskId: task.id, answer: 'allow' })).toMatchObject({
      ok: false,
      reason: 'already-answered',
    });
  });

  it('IPC from a foreign page or with a bad payload is refused before the bridge sees it', async () => {
    const task = await rpc(bridge(), 'message/send', { agent: 'echo', text: 'decide: red|blue' });
    const list = fake.ipcHandlers.get(IPC_CHANNELS.listPending)!;
    const answer = fake.ipcHandlers.get(IPC_CHANNELS.answer)!;
    const own = ownSender();
    const win = approvalWindows()[0]!.webContents;
    // A subframe of the window (same process, another routing id), another window's page, a closed frame.
    const iframe = { sender: win, senderFrame: { ...win.mainFrame, routingId: 7, url: 'https://evil.example/' } };
    expect(() => answer(iframe, { taskId: task.id, answer: 'red' })).toThrow(
      /refused an IPC call from https:\/\/evil\.example\/: only the approval window/,
    );
    const other = { sender: { id: 999 }, senderFrame: { ...win.mainFrame } };
    expect(() => answer(other, { taskId: task.id, answer: 'red' })).toThrow(/only the approval window/);
    expect(() => answer({ sender: win, senderFrame: null }, { taskId: task.id, answer: 'red' })).toThrow(
      /closed frame/,
    );
    expect(() => answer(own, { taskId: task.id, answer: 7 })).toThrow(
      /invalid IPC payload: answer: answer must be a string/,
    );
    expect(() => answer(own, { taskId: task.id, answer: 'red', answeredBy: 'rule' })).toThrow(/invalid IPC payload/);
    expect(() => list(own, { sneaky: true })).toThrow(/listPending takes no arguments/);
    const items = list(own, undefined) as { taskId: string }[];
    expect(items.map((i) => i.taskId)).toContain(task.id);
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('input-required');
    bridge().dispatcher.answer(task.id, 'red', { kind: 'person', via: 'test' });
  });

  it('the tray’s Activity opens the activity window; only its own page may call the activity IPC', async () => {
    menuItem(tray, 'Activity').click!();
    const win = fake.windows.find((w) => w.loadedFile?.endsWith('activity.html'))!;
    expect(win).toBeDefined();
    expect(win.options.webPreferences).toMatchObject({
      preload: expect.stringMatching(/activity\.cjs$/),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    const own = { sender: win.webContents, senderFrame: win.webContents.mainFrame };
    const snapshot = fake.ipcHandlers.get(ACTIVITY_CHANNELS.snapshot)!;
    const cancel = fake.ipcHandlers.get(ACTIVITY_CHANNELS.cancel)!;
    const save = fake.ipcHandlers.get(ACTIVITY_CHANNELS.save)!;
    const task = await rpc(bridge(), 'message/send', { agent: 'echo', text: 'decide: left|right' });
    expect((snapshot(own, undefined) as { rows: { taskId: string }[] }).rows.map((r) => r.taskId)).toContain(task.id);
    // The attack: the approval window's page (or a subframe, or any other page) cancelling through the activity IPC.
    const approval = approvalWindows().find((w) => w.loadedFile?.endsWith('index.html'))!.webContents;
    const fromApproval = { sender: approval, senderFrame: approval.mainFrame };
    const subframe = { sender: win.webContents, senderFrame: { ...win.webContents.mainFrame, routingId: 9 } };
    for (const forged of [fromApproval, subframe, { sender: win.webContents, senderFrame: null }]) {
      await expect((async () => cancel(forged, { taskId: task.id }))()).rejects.toThrow(
        /only the activity window may call it/,
      );
      expect(() => snapshot(forged, undefined)).toThrow(/only the activity window may call it/);
    }
    expect(() => snapshot(own, { all: true })).toThrow(/invalid IPC payload/);
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('input-required');

    // Saving goes through the save dialog (main's), never a path from the page.
    const reply = await rpc(bridge(), 'message/send', { agent: 'fake', text: 'echo saved words' });
    fake.saveTo = path.join(cfg.root, 'saved.txt');
    const artifactId = reply.artifacts[0].artifactId as string;
    expect(await save(own, { taskId: reply.id, artifactId, part: 0 })).toEqual({ ok: true, taskId: reply.id });
    expect(readFileSync(fake.saveTo, 'utf8')).toBe(textOf(reply.artifacts[0].parts));
    // With the Mark of the Web on Windows (mark-of-the-web.ts; here the stream's name is a sibling file).
    expect(readFileSync(`${fake.saveTo}:Zone.Identifier`, 'utf8')).toBe('[ZoneTransfer]\r\nZoneId=3\r\n');
    fake.saveTo = undefined;
    expect(await save(own, { taskId: reply.id, artifactId, part: 0 })).toMatchObject({ ok: false });

    expect(await cancel(own, { taskId: task.id })).toEqual({ ok: true, taskId: task.id });
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).metadata.answeredBy).toBeUndefined();
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.message.parts[0].text).toBe(
      'canceled by person (activity window)',
    );
    // The approval window's link opens (shows) the same window.
    const show = vi.spyOn(shell.activity, 'show');
    fake.ipcHandlers.get(OPEN_ACTIVITY_CHANNEL)!(fromApproval, undefined);
    expect(show).toHaveBeenCalledOnce();
    show.mockRestore();
  });

  it('Allow on a task’s second permission toast answers it: the first toast’s closed object stays in the presenter', async () => {
    const task = await rpc(bridge(), 'message/send', { agent: 'fake', text: 'two-safe-commands' });
    expect(task.status.state).toBe('input-required');
    await vi.waitFor(() => expect(notificationFor(task.id)).toBeDefined(), WAIT);
    const first = notificationFor(task.id)!;
    expect(first.options.actions).toEqual([
      { type: 'button', text: 'Allow' },
      { type: 'button', text: 'Deny' },
    ]);
    pressLiveToast(first, 0);
    await vi.waitFor(() => expect(notificationFor(task.id)).not.toBe(first), WAIT);
    const second = notificationFor(task.id)!;
    expect(second.options.title).toBe('fake wants to run: whoami');
    // Electron keeps the closed first toast in its set, without a delegate (Notification::Close): found first.
    expect(first.close).toHaveBeenCalled();
    expect(fake.presenter!.notifications.find((n) => n.tag === first.options.id)?.delegate).toBeUndefined();
    expect(second.options.id).not.toBe(first.options.id);
    expect(second.options.id!.length).toBeLessThanOrEqual(64);
    pressLiveToast(second, 0);
    await vi.waitFor(
      async () => expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    const done = await rpc(bridge(), 'tasks/get', { id: task.id });
    expect(JSON.stringify(done.artifacts)).toContain('first=allow second=allow');
  });

  it('a second launch by COM (`-Embedding`, a toast pressed) opens no window, like --hidden', () => {
    const before = approvalWindows().filter((w) => !w.destroyed).length;
    app.emit('second-instance', fakeEvent(), ['Contactor.exe', '-Embedding'], 'C:\\', { argv: ['-Embedding'] });
    expect(approvalWindows().filter((w) => !w.destroyed)).toHaveLength(before);
  });

  it('the activation callback leaves live toasts to their own events (no double answer)', async () => {
    const task = await rpc(bridge(), 'message/send', { agent: 'echo', text: 'decide: tabs|spaces' });
    await vi.waitFor(() => expect(notificationFor(task.id)).toBeDefined(), WAIT);
    fake.activationHandler!(press(notificationFor(task.id)!.options.toastXml!, 1).details);
    expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('input-required');
    notificationFor(task.id)!.emit('click', fakeEvent());
    expect(approvalWindows().some((w) => !w.destroyed)).toBe(true);
    bridge().dispatcher.answer(task.id, 'tabs', { kind: 'person', via: 'test' });
    await vi.waitFor(
      async () => expect((await rpc(bridge(), 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
  });

  it('a bad edit of the running config shows in the tray while the bridge keeps its last good config', async () => {
    cfg.write(`port: 0\ndata_dir: ${JSON.stringify(cfg.dataDir)}\nagents:\n  echo: { kind: subprocess_cli }\n`);
    // No click: the bridge watches its file and the tray redraws when an edit is refused.
    await vi.waitFor(() => expect(menuItem(tray, /config edit not applied/).label).toContain(cfg.configPath), WAIT);
    expect(menuItem(tray, /config edit not applied/).label).toMatch(/:\d+: agents\.echo\.command:/);
    expect(tray.tooltip).toContain('config edit not applied');
    expect((await rpc(bridge(), 'message/send', { agent: 'echo', text: 'still up' })).status.state).toBe('completed');

    cfg.write();
    await vi.waitFor(() => expect(menuItem(tray, /^Bridge running on /).label).not.toContain('config'), WAIT);
  });

  it('Reload config with a bad edit keeps the bridge and its open questions, as `contactor reload` does', async () => {
    const asked = await rpc(bridge(), 'message/send', { agent: 'echo', text: 'decide: tabs|spaces' });
    expect(asked.status.state).toBe('input-required');
    const running = shell.host.bridge;
    cfg.write('agents: [not, a, map]\n');
    menuItem(tray, 'Reload config').click!();
    await vi.waitFor(() => expect(menuItem(tray, /config edit not applied/).label).toContain(cfg.configPath), WAIT);
    await shell.host.reload(); // after the click's own reload: the same bridge still runs
    expect(shell.host.bridge).toBe(running);
    expect(shell.host.error).toBeUndefined();
    expect((await rpc(bridge(), 'tasks/get', { id: asked.id })).status.state).toBe('input-required');
    bridge().dispatcher.answer(asked.id, 'tabs', { kind: 'person', via: 'test' });

    cfg.write();
    menuItem(tray, 'Reload config').click!();
    await vi.waitFor(() => expect(menuItem(tray, /^Bridge running on /).label).not.toContain('config'), WAIT);
    expect(shell.host.bridge).toBe(running);
  });

  it('Reload config restarts the bridge when a key read at start changed (rate_limit_per_minute)', async () => {
    const running = shell.host.bridge;
    cfg.write(readFileSync(cfg.configPath, 'utf8') + 'rate_limit_per_minute: 1000\n');
    await shell.host.reload();
    expect(shell.host.bridge).toBeDefined();
    expect(shell.host.bridge).not.toBe(running);
    cfg.write();
    await shell.host.reload();
    expect(shell.host.bridge).toBeDefined();
    shell.refresh();
    expect((await rpc(bridge(), 'message/send', { agent: 'echo', text: 'hi' })).status.state).toBe('completed');
  });
});

describe('after a restart', () => {
  it('a toast button pressed in the Action Center (handleActivation) answers the decision it showed', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const first = (await launchHiddenOnWindows(cfg))!;
    const task = await rpc({ url: first.host.bridge!.url, token: first.host.bridge!.token }, 'message/send', {
      agent: 'echo',
      text: 'decide: tabs|spaces',
    });
    expect(task.status.state).toBe('input-required');
    await vi.waitFor(() => expect(fake.notifications.some((n) => isToastOf(n, task.id))).toBe(true), WAIT);
    // The toast stays in the Action Center across the restart: keep its XML to press it later.
    const toastXml = fake.notifications.find((n) => isToastOf(n, task.id))!.options.toastXml!;
    await quitAndWait();

    fake.reset();
    const second = (await launchHiddenOnWindows(cfg))!;
    const b = { url: second.host.bridge!.url, token: second.host.bridge!.token };
    const show = vi.spyOn(second.approvals, 'show');
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // What Electron delivered before our toastXml: only its own tag. Never an answer; logged.
    fake.activationHandler!(deliver(`type=action&action=1&tag=${task.id}`).details);
    expect(log.mock.calls.map((c) => String(c[0]))).toContainEqual(expect.stringMatching(/ignored a toast activation/));
    log.mockRestore();
    fake.activationHandler!(press(toastXml, 'body').details);
    expect(show).toHaveBeenCalledTimes(1);
    expect((await rpc(b, 'tasks/get', { id: task.id })).status.state).toBe('input-required');
    fake.activationHandler!(press(toastXml, 1).details);
    await vi.waitFor(
      async () => expect((await rpc(b, 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    const done = await rpc(b, 'tasks/get', { id: task.id });
    expect(done.metadata.answeredBy).toBe('person (notification)');
    expect(JSON.stringify(done.artifacts)).toContain('Going with spaces. Done.');
    // The same button again: already answered, ignored without a crash.
    fake.activationHandler!(press(toastXml, 0).details);
    expect((await rpc(b, 'tasks/get', { id: task.id })).status.state).toBe('completed');
    await quitAndWait();
  });
});

describe('an Action Center toast whose question was answered since', () => {
  it('a button or the body opens the activity window on that task, not nothing', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const first = (await launchHiddenOnWindows(cfg))!;
    const task = await rpc({ url: first.host.bridge!.url, token: first.host.bridge!.token }, 'message/send', {
      agent: 'echo',
      text: 'decide: tabs|spaces',
    });
    await vi.waitFor(() => expect(fake.notifications.some((n) => isToastOf(n, task.id))).toBe(true), WAIT);
    // Quit leaves the toast in the Action Center (notifier.ts release); keep its XML to press it there.
    const toastXml = fake.notifications.find((n) => isToastOf(n, task.id))!.options.toastXml!;
    await quitAndWait();

    fake.reset();
    const second = (await launchHiddenOnWindows(cfg))!;
    const b = { url: second.host.bridge!.url, token: second.host.bridge!.token };
    // Answered elsewhere meanwhile (the CLI, the approval window).
    second.host.bridge!.server.dispatcher.answer(task.id, 'tabs', { kind: 'person', via: 'cli' });
    await vi.waitFor(
      async () => expect((await rpc(b, 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    const activityWindows = () => fake.windows.filter((w) => w.loadedFile?.endsWith('activity.html'));
    expect(activityWindows()).toHaveLength(0);

    // The press goes the way Windows and Electron take it: COM → HandleToastActivation → handleActivation's
    // callback (fake-electron.ts activateFromActionCenter); no live Notification has this toast's tag.
    activateFromActionCenter(toastXml, 1);
    expect(activityWindows()).toHaveLength(1);
    const win = activityWindows()[0]!;
    // Told which task once its page has loaded (loadFile resolves at did-finish-load).
    await vi.waitFor(
      () => expect(win.webContents.send).toHaveBeenCalledWith(ACTIVITY_CHANNELS.showTask, task.id),
      WAIT,
    );
    win.emit('ready-to-show');
    expect(win.show).toHaveBeenCalled();
    // Nothing was answered by the press: the first answer stands.
    expect((await rpc(b, 'tasks/get', { id: task.id })).metadata.answeredBy).toBe('person (cli)');

    // The toast's body, pressed later: the same window, brought forward on the same task.
    win.webContents.send.mockClear();
    activateFromActionCenter(toastXml, 'body');
    expect(activityWindows()).toHaveLength(1);
    expect(win.focus).toHaveBeenCalled();
    expect(win.webContents.send).toHaveBeenCalledWith(ACTIVITY_CHANNELS.showTask, task.id);
    await quitAndWait();
  });
});

describe('a toast pressed while the app is not running', () => {
  it('COM starts it with -Embedding: hidden, the presenter (and so the activator) exists at once, the press answers', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const first = (await launchHiddenOnWindows(cfg))!;
    const task = await rpc({ url: first.host.bridge!.url, token: first.host.bridge!.token }, 'message/send', {
      agent: 'echo',
      text: 'decide: tabs|spaces',
    });
    await vi.waitFor(() => expect(fake.notifications.some((n) => isToastOf(n, task.id))).toBe(true), WAIT);
    const toast = fake.notifications.find((n) => isToastOf(n, task.id))!;
    await quitAndWait();
    // Quit leaves the toast of an open question in the Action Center.
    expect(toast.close).not.toHaveBeenCalled();

    // A new process: no presenter, no COM class. COM holds the press until the app registers its class.
    fake.reset();
    activateFromActionCenter(toast.options.toastXml!, 1);
    const second = (await launch({
      argv: ['Contactor.exe', '-Embedding'],
      env: testEnv(),
      platform: 'win32',
      bridge: { configPath: cfg.configPath },
    }))!;
    expect(fake.calls.indexOf('presenter')).toBeGreaterThan(fake.calls.indexOf('handleActivation'));
    expect(fake.calls.indexOf('handleActivation')).toBeGreaterThan(fake.calls.indexOf('ready'));
    expect(approvalWindows()).toHaveLength(0);
    const b = { url: second.host.bridge!.url, token: second.host.bridge!.token };
    await vi.waitFor(
      async () => expect((await rpc(b, 'tasks/get', { id: task.id })).status.state).toBe('completed'),
      WAIT,
    );
    expect((await rpc(b, 'tasks/get', { id: task.id })).metadata.answeredBy).toBe('person (notification)');
    await quitAndWait();
  });
});

describe('sign-out and shutdown (no before-quit)', () => {
  it('Windows session-end: running task recorded, agent stopped, bridge.json removed before the process ends', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const shell = (await launchHiddenOnWindows(cfg))!;
    const b = { url: shell.host.bridge!.url, token: shell.host.bridge!.token };
    const dispatcher = shell.host.bridge!.server.dispatcher;
    void rpc(b, 'message/send', { agent: 'fake', text: 'stream' }).catch(() => undefined);
    const working = () => dispatcher.list({ states: ['working'], pageSize: 5, includeArtifacts: false }).tasks;
    await vi.waitFor(() => expect(working()).toHaveLength(1), WAIT);
    const running = working()[0]!;
    await vi.waitFor(() => expect(dispatcher.get(running.id).metadata.receipt?.pid).toEqual(expect.any(Number)), WAIT);
    const agentPid = dispatcher.get(running.id).metadata.receipt!.pid as number;

    const { terminated, heardBy } = endWindowsSession();
    // Heard by the hidden window that exists only for it: a tray app has no other window most of the time.
    expect(heardBy).toBe(1);
    expect(fake.windows.find((w) => w.options.focusable === false)?.show).not.toHaveBeenCalled();
    expect(terminated).toBe(true);
    // What had to happen synchronously, before Electron's TerminateCurrentProcessImmediately:
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
    await vi.waitFor(() => expect(() => process.kill(agentPid, 0)).toThrow(), WAIT);

    fake.reset();
    const next = (await launchHiddenOnWindows(cfg))!;
    expect(next.host.error).toBeUndefined();
    const after = await rpc({ url: next.host.bridge!.url, token: next.host.bridge!.token }, 'tasks/get', {
      id: running.id,
    });
    expect(after.status.state).toBe('failed');
    expect(after.metadata.retryable).toBe(true);
    await quitAndWait();
  });
});

describe('shutdown off Windows', () => {
  it('powerMonitor shutdown delays it (preventDefault) and quits cleanly', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const shell = await launch({
      argv: ['electron', '.', '--hidden'],
      env: testEnv(),
      platform: 'linux',
      bridge: { configPath: cfg.configPath },
    });
    expect(shell?.host.bridge).toBeDefined();
    const event = fakeEvent();
    powerMonitor.emit('shutdown', event);
    expect(event.defaultPrevented).toBe(true);
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
    await vi.waitFor(() => expect(fake.quitted).toBe(true), WAIT);
  });
});

describe('the installer asks the app to quit', () => {
  it('Contactor.exe --quit reaches the running app, which stops its agents and records the running task', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const shell = (await launchHiddenOnWindows(cfg))!;
    const b = { url: shell.host.bridge!.url, token: shell.host.bridge!.token };
    const dispatcher = shell.host.bridge!.server.dispatcher;
    void rpc(b, 'message/send', { agent: 'fake', text: 'stream' }).catch(() => undefined);
    await vi.waitFor(
      () =>
        expect(dispatcher.list({ states: ['working'], pageSize: 5, includeArtifacts: false }).tasks).toHaveLength(1),
      WAIT,
    );
    const running = dispatcher.list({ states: ['working'], pageSize: 5, includeArtifacts: false }).tasks[0]!;
    const pidOf = (): unknown => dispatcher.get(running.id).metadata.receipt?.pid;
    await vi.waitFor(() => expect(pidOf()).toEqual(expect.any(Number)), WAIT);
    const agentPid = pidOf() as number;

    // What build/installer.nsh runs: a second instance with --quit; Electron hands its argv to the first
    // instance as `second-instance` additionalData (requestSingleInstanceLock({ argv })).
    app.emit('second-instance', fakeEvent(), ['Contactor.exe', '--quit'], 'C:\\', { argv: ['--quit'] });
    await vi.waitFor(() => expect(fake.quitted).toBe(true), WAIT);
    expect(shell.host.bridge).toBeUndefined();
    expect(() => process.kill(agentPid, 0)).toThrow();

    // The next start finds the task ended as retryable, not orphaned in `working`.
    fake.reset();
    const next = (await launchHiddenOnWindows(cfg))!;
    const after = await rpc({ url: next.host.bridge!.url, token: next.host.bridge!.token }, 'tasks/get', {
      id: running.id,
    });
    expect(after.status.state).toBe('failed');
    expect(after.metadata.retryable).toBe(true);
    await quitAndWait();
  });

  it('`contactor down` (POST /shutdown with the token) quits the app cleanly, as the tray’s Quit does', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const shell = (await launchHiddenOnWindows(cfg))!;
    const { url, token } = shell.host.bridge!;
    const refused = await fetch(`${url}/shutdown`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(401);
    const res = await fetch(`${url}/shutdown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    });
    expect(res.status).toBe(202);
    await vi.waitFor(() => expect(fake.quitted).toBe(true), WAIT);
    expect(shell.host.bridge).toBeUndefined();
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
  });

  it('--quit with no app running quits at once and starts nothing', async () => {
    fake.reset();
    const cfg = desktopConfig();
    dirs.push(cfg);
    const shell = await launch({
      argv: ['Contactor.exe', '--quit'],
      env: testEnv(),
      bridge: { configPath: cfg.configPath },
    });
    expect(shell).toBeUndefined();
    expect(fake.calls).toEqual(['lock', 'quit']);
    expect(existsSync(path.join(cfg.dataDir, 'bridge.json'))).toBe(false);
  });
});
