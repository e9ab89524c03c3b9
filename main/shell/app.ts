/**
 * The desktop shell's composition root. Startup order matters (electron-windows.md §1): the single-instance
 * lock first (a second launch only opens the approvals of the first), then the AppUserModelId and the toast
 * activator CLSID before any notification can exist, then `ready`, then the bridge is started, and only
 * then does the tray appear, so every menu item works from the first click.
 */
import os from 'node:os';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { Notification, app, clipboard, dialog, shell, type ActivationArguments } from 'electron';
import { createActivityIpc } from './activity-ipc.js';
import { ActivityWindow } from './activity-window.js';
import { createBridge, defaultDataDir, resolveConfigPath, type BridgeOptions } from '../wiring/wiring.js';
import { bridgeOwnPaths } from '../wiring/agents.js';
import { createApprovalIpc } from './approval-ipc.js';
import { ApprovalWindow } from './approval-window.js';
import { HIDDEN_FLAG, loginItemTarget, readStartAtLogin, writeStartAtLogin } from './autostart.js';
import { TRAY_HINT, takeFirstRun } from './first-run.js';
import { BridgeHost } from './bridge-host.js';
import { snapshotOf } from './bridge-snapshot.js';
import { registerActivityIpc, registerApprovalIpc } from './ipc.js';
import { appLayout, userDataDir, windowsIdentity } from './layout.js';
import { protectedHomeDirs } from './low-risk.js';
import { Notifier } from './notifier.js';
import { onSessionEnd } from './session-end.js';
import { activationKey } from './toast-xml.js';
import { TrayIcon } from './tray.js';
import type { TrayActions } from './tray-menu.js';
import { trayStateOf, type BridgeStatus, type TrayState } from './tray-state.js';
import { wslCliSetup } from './wsl-setup.js';

export interface LaunchOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  /** process.platform unless a test says otherwise: Windows-only Electron calls are made on win32 only. */
  platform?: NodeJS.Platform;
  /** createBridge overrides (tests: a temp config and data dir); `resourcesDir` defaults to the app's. */
  bridge?: BridgeOptions;
}

export interface DesktopShell {
  readonly host: BridgeHost;
  readonly approvals: ApprovalWindow;
  readonly activity: ActivityWindow;
  readonly tray: TrayIcon;
  readonly actions: TrayActions;
  /** The tray state as last rendered. */
  state(): TrayState;
  /** Renders now instead of after the debounce (tests, and after the user's own menu actions). */
  refresh(): void;
}

/** Feed events come in bursts (a question = a status change + a reminder timer + ...): render once per burst. */
const REFRESH_DEBOUNCE_MS = 150;

/**
 * `Contactor.exe --quit`: the installer's way to stop a running app cleanly before it replaces files
 * (build/installer.nsh customCheckAppRunning). It reaches the running instance through the single-instance
 * lock, which quits through `before-quit`: agents stopped, running tasks recorded, the store closed.
 */
export const QUIT_FLAG = '--quit';

/**
 * COM starts the app with this argument for a toast pressed while it was not running: LocalServer32 of the
 * toast activator CLSID is the exe (windows_toast_activator.cc EnsureCLSIDRegistry), and COM adds `-Embedding`.
 * Such a start stays in the tray like `--hidden`; the press itself arrives through handleActivation.
 */
export const EMBEDDING_FLAG = '-embedding';

/** Started by autostart or by COM for a toast: no window. */
function startsHidden(args: readonly unknown[]): boolean {
  return args.some(
    (a) => typeof a === 'string' && (a === HIDDEN_FLAG || a.toLowerCase().replace(/^\//, '-') === EMBEDDING_FLAG),
  );
}

export async function launch(opts: LaunchOptions): Promise<DesktopShell | undefined> {
  // Before the lock, which Chromium keeps in userData: a dev run's name and folder are its own (layout.ts).
  const identity = windowsIdentity(app.isPackaged, process.execPath);
  if ((opts.platform ?? process.platform) === 'win32') {
    if (identity.name) app.setName(identity.name);
    app.setPath('userData', userDataDir(app.isPackaged, opts.env, os.homedir()));
  }
  if (!app.requestSingleInstanceLock({ argv: opts.argv.slice(1) })) {
    app.quit();
    return undefined;
  }
  // Nothing was running: there is nothing to stop, and an installer must not start the app.
  if (opts.argv.includes(QUIT_FLAG)) {
    app.quit();
    return undefined;
  }
  // setAppUserModelId and setToastActivatorCLSID are `@platform win32` (electron.d.ts): absent elsewhere.
  if ((opts.platform ?? process.platform) === 'win32') {
    app.setAppUserModelId(identity.aumid);
    app.setToastActivatorCLSID(identity.clsid);
  }

  // Filled in once the tray exists; events that arrive earlier find it empty.
  const ready: { shell?: DesktopShell; tray?: TrayIcon } = {};
  let showWhenReady = !startsHidden(opts.argv);
  let quitWhenReady = false;
  // A second launch means "show me", or "quit" from the installer. additionalData carries its argv as given
  // (docs/api/app.md: the `argv` parameter may be reordered or extended by Chromium).
  app.on('second-instance', (_event, argv: string[], _cwd: string, additionalData: unknown) => {
    const given = (additionalData as { argv?: unknown } | undefined)?.argv;
    const args = Array.isArray(given) ? given : argv;
    if (args.includes(QUIT_FLAG)) {
      // Before the tray exists the clean stop (before-quit below) is not in place yet: quit once it is.
      if (ready.shell) app.quit();
      else quitWhenReady = true;
      return;
    }
    if (startsHidden(args)) return;
    if (ready.shell) ready.shell.approvals.show();
    else showWhenReady = true;
  });
  // A tray app has no main window: closing the approval window must not quit.
  app.on('window-all-closed', () => undefined);

  await app.whenReady();
  // Toast presses after a reboot, sign-out or crash reach the app through its toast activator COM class, which
  // Electron registers only when its notification presenter is created — by the first `new Notification()` or
  // `Notification.isSupported()`, not by handleActivation (notification_presenter_win.cc
  // NotificationPresenter::Create → windows_toast_activator.cc RegisterActivator). So create it on every start,
  // with the handler already in place; presses that come before the bridge is up wait for the notifier.
  const win32 = (opts.platform ?? process.platform) === 'win32';
  const activations: { deliver?: (details: ActivationArguments) => void; early: ActivationArguments[] } = {
    early: [],
  };
  if (win32 && typeof Notification.handleActivation === 'function') {
    Notification.handleActivation((details) =>
      activations.deliver ? activations.deliver(details) : void activations.early.push(details),
    );
    Notification.isSupported();
  }
  const layout = appLayout({
    isPackaged: app.isPackaged,
    resourcesPath: process.resourcesPath,
    appPath: app.getAppPath(),
  });
  // `contactor down` asks over HTTP (POST /shutdown): quit cleanly, as the tray's Quit does, instead of the CLI's
  // fallback signal (on Windows process.kill is TerminateProcess: agents left running, tasks unrecorded).
  const shutdownRequested = (): void => {
    if (ready.shell) app.quit();
    else quitWhenReady = true;
  };
  const host = new BridgeHost(() =>
    createBridge({
      env: opts.env,
      resourcesDir: layout.resourcesDir,
      onShutdownRequested: shutdownRequested,
      ...opts.bridge,
    }),
  );
  await host.start();

  const log = (message: string, err?: unknown): void => console.error(`contactor: ${message}`, err ?? '');
  const dispatcher = () => host.bridge?.server.dispatcher;
  const loginTarget = loginItemTarget(process.execPath);
  const wslSetup =
    app.isPackaged && process.platform === 'win32' ? wslCliSetup(path.dirname(process.execPath)) : undefined;

  const approvals = new ApprovalWindow({
    preload: layout.preload,
    rendererHtml: layout.rendererHtml,
    trayBounds: () => ready.tray?.bounds(),
  });
  const activity = new ActivityWindow({ preload: layout.activityPreload, rendererHtml: layout.activityHtml });
  const notifier = new Notifier({
    dispatcher,
    openApprovals: () => approvals.show(),
    icon: path.join(layout.iconsDir, 'app.png'),
    activationKey: () => activationKey(host.bridge?.token),
    protectedDirs: () => {
      const dataDir = host.config?.dataDir ?? opts.bridge?.dataDir ?? defaultDataDir(opts.env);
      const configFile = host.config?.path;
      // The bridge's own files (the list its agents are kept out of), the whole folder config.yaml is in,
      // and the home's credential and browser-profile folders: never read with one click.
      return [
        ...(dataDir && configFile ? bridgeOwnPaths(dataDir, configFile) : dataDir ? [dataDir] : []),
        ...(configFile ? [path.dirname(configFile)] : []),
        ...protectedHomeDirs(os.homedir()),
      ];
    },
    log,
  });
  activations.deliver = (details) => notifier.onActivation(details);
  for (const details of activations.early.splice(0)) notifier.onActivation(details);
  registerApprovalIpc(
    createApprovalIpc({ ownFrame: () => approvals.ownFrame(), dispatcher, openActivity: () => activity.show() }),
  );
  registerActivityIpc(
    createActivityIpc({
      ownFrame: () => activity.ownFrame(),
      bridge: () => host.bridge,
      copyText: (text) => clipboard.writeText(text),
      openPath: (file) => shell.openPath(file),
      saveFile: async (suggestedName, data) => {
        const options = { defaultPath: suggestedName };
        const window = activity.browserWindow();
        const chosen = await (window ? dialog.showSaveDialog(window, options) : dialog.showSaveDialog(options));
        if (chosen.canceled || !chosen.filePath) return false;
        writeFileSync(chosen.filePath, data);
        return true;
      },
    }),
  );

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
    openActivity: () => activity.show(),
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
    activity.notifyChanged();
    if (event.kind === 'status-update') scheduleRefresh();
  });
  const unlistenHost = host.onChange(scheduleRefresh);

  // Sign-out or shutdown: no before-quit comes, and the process has moments (session-end.ts).
  const sessionEnd = onSessionEnd(
    opts.platform ?? process.platform,
    () => {
      if (timer) clearTimeout(timer);
      unlistenFeed();
      unlistenHost();
      notifier.release();
      host.endSession();
    },
    () => app.quit(),
  );

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
    // Toasts of open questions stay in the Action Center: after the next start a press answers them (notifier.ts).
    notifier.release();
    sessionEnd.dispose();
    approvals.destroy();
    activity.destroy();
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

  if (takeFirstRun(host.config?.dataDir) && Notification.isSupported()) {
    const hint = new Notification({ title: TRAY_HINT.title, body: TRAY_HINT.body, timeoutType: 'never' });
    hint.on('click', () => approvals.show());
    hint.show();
  }

  ready.shell = { host, approvals, activity, tray, actions, state: () => rendered, refresh };
  if (quitWhenReady) app.quit();
  else if (showWhenReady) approvals.show();
  return ready.shell;
}
