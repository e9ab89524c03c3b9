/**
 * The desktop shell's composition root. Startup order matters (electron-windows.md §1): the single-instance
 * lock first (a second launch only opens the approvals of the first), then the AppUserModelId and the toast
 * activator CLSID before any notification can exist, then `ready`, then the bridge is started, and only
 * then does the tray appear, so every menu item works from the first click.
 */
import path from 'node:path';
import { Notification, app, clipboard, shell } from 'electron';
import { createBridge, defaultDataDir, resolveConfigPath, type BridgeOptions } from '../wiring.js';
import { createApprovalIpc } from './approval-ipc.js';
import { ApprovalWindow } from './approval-window.js';
import { HIDDEN_FLAG, loginItemTarget, readStartAtLogin, writeStartAtLogin } from './autostart.js';
import { BridgeHost } from './bridge-host.js';
import { snapshotOf } from './bridge-snapshot.js';
import { registerApprovalIpc } from './ipc.js';
import { TOAST_ACTIVATOR_CLSID, appLayout, appUserModelId } from './layout.js';
import { Notifier } from './notifier.js';
import { TrayIcon } from './tray.js';
import type { TrayActions } from './tray-menu.js';
import { trayStateOf, type BridgeStatus, type TrayState } from './tray-state.js';
import { wslCliSetup } from './wsl-setup.js';

export interface LaunchOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  /** createBridge overrides (tests: a temp config and data dir); `resourcesDir` defaults to the app's. */
  bridge?: BridgeOptions;
}

export interface DesktopShell {
  readonly host: BridgeHost;
  readonly approvals: ApprovalWindow;
  readonly tray: TrayIcon;
  readonly actions: TrayActions;
  /** The tray state as last rendered. */
  state(): TrayState;
  /** Renders now instead of after the debounce (tests, and after the user's own menu actions). */
  refresh(): void;
}

/** Feed events come in bursts (a question = a status change + a reminder timer + ...): render once per burst. */
const REFRESH_DEBOUNCE_MS = 150;

export async function launch(opts: LaunchOptions): Promise<DesktopShell | undefined> {
  if (!app.requestSingleInstanceLock({ argv: opts.argv.slice(1) })) {
    app.quit();
    return undefined;
  }
  app.setAppUserModelId(appUserModelId(app.isPackaged, process.execPath));
  app.setToastActivatorCLSID(TOAST_ACTIVATOR_CLSID);

  // Filled in once the tray exists; events that arrive earlier find it empty.
  const ready: { shell?: DesktopShell; tray?: TrayIcon } = {};
  let showWhenReady = !opts.argv.includes(HIDDEN_FLAG);
  // additionalData/argv of the second launch are not needed: any second launch means "show me".
  app.on('second-instance', () => {
    if (ready.shell) ready.shell.approvals.show();
    else showWhenReady = true;
  });
  // A tray app has no main window: closing the approval window must not quit.
  app.on('window-all-closed', () => undefined);

  await app.whenReady();
  const layout = appLayout({
    isPackaged: app.isPackaged,
    resourcesPath: process.resourcesPath,
    appPath: app.getAppPath(),
  });
  const host = new BridgeHost(() => createBridge({ env: opts.env, resourcesDir: layout.resourcesDir, ...opts.bridge }));
  await host.start();

  const log = (message: string, err?: unknown): void => console.error(`contactor: ${message}`, err ?? '');
  const dispatcher = () => host.bridge?.server.dispatcher;
  const loginTarget = loginItemTarget(opts.env, process.execPath);
  const wslSetup =
    app.isPackaged && process.platform === 'win32' ? wslCliSetup(path.dirname(process.execPath)) : undefined;

  const approvals = new ApprovalWindow({
    preload: layout.preload,
    rendererHtml: layout.rendererHtml,
    trayBounds: () => ready.tray?.bounds(),
  });
  const notifier = new Notifier({
    dispatcher,
    openApprovals: () => approvals.show(),
    icon: path.join(layout.iconsDir, 'app.png'),
    log,
  });
  if (typeof Notification.handleActivation === 'function')
    Notification.handleActivation((details) => notifier.onActivation(details));
  registerApprovalIpc(createApprovalIpc({ pageUrl: layout.rendererUrl, dispatcher }));

  const currentState = (): TrayState => {
    const bridge = host.bridge;
    const status: BridgeStatus = bridge
      ? {
          kind: 'running',
          snapshot: snapshotOf(bridge.server.dispatcher, bridge.url, bridge.configStatus().error),
        }
      : host.error !== undefined
        ? { kind: 'error', message: host.error }
        : { kind: 'starting' };
    return trayStateOf(status, { startAtLogin: readStartAtLogin(app, loginTarget), wslSetup });
  };
  let rendered = currentState();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    rendered = currentState();
    ready.tray?.render(rendered);
    approvals.notifyChanged();
  };
  const scheduleRefresh = (): void => {
    timer ??= setTimeout(refresh, REFRESH_DEBOUNCE_MS);
  };

  // Unknown only when the very first bridge failed inside createBridge; its error then names the file.
  const openIfKnown = (target: string | undefined, what: string): void => {
    if (target) void shell.openPath(target);
    else log(`the ${what} is not known yet: the bridge failed before reading its config (see the tray's first line)`);
  };
  const actions: TrayActions = {
    openApprovals: () => approvals.show(),
    copyTaskId: (taskId) => clipboard.writeText(taskId),
    setStartAtLogin: (enabled) => {
      writeStartAtLogin(app, loginTarget, enabled);
      refresh();
    },
    openConfig: () =>
      openIfKnown(host.config?.path ?? resolveConfigPath(opts.bridge?.configPath, opts.env).path, 'config file'),
    reloadConfig: () => void host.reload().then(refresh),
    copyWslSetup: () => {
      if (wslSetup) clipboard.writeText(wslSetup);
    },
    openLogs: () => {
      const dataDir = host.config?.dataDir ?? opts.bridge?.dataDir ?? defaultDataDir(opts.env);
      openIfKnown(dataDir && path.join(dataDir, 'logs'), 'logs folder');
    },
    quit: () => app.quit(),
  };

  const tray = new TrayIcon(layout.iconsDir, actions, rendered);
  ready.tray = tray;
  const unlistenFeed = host.onFeed((event, task) => {
    notifier.onTaskEvent(event, task);
    if (event.kind === 'status-update') scheduleRefresh();
  });
  const unlistenHost = host.onChange(scheduleRefresh);

  let stopped = false;
  let stopping = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    if (timer) clearTimeout(timer);
    unlistenFeed();
    unlistenHost();
    notifier.dispose();
    approvals.destroy();
    tray.destroy();
    // Agents stopped and the store closed before the process goes (server.ts `stop`).
    void host
      .stop()
      .catch((err: unknown) => log('stopping the bridge failed', err))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });

  ready.shell = { host, approvals, tray, actions, state: () => rendered, refresh };
  if (showWhenReady) approvals.show();
  return ready.shell;
}
