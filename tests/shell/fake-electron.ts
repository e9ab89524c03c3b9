/**
 * A stand-in for the `electron` module (the real one downloads its binary on import and throws here).
 * Use it with `vi.mock('electron', () => import('./fake-electron.js'))`; every call the shell makes is a
 * vi.fn spy, and `fake.calls` records the order of the calls that make up startup.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import { frameUrlAfterLoadFile } from './chromium-file-url.js';
import { deliver, elements, xmlLoadError, type Delivered } from './windows-toast-host.js';

type Listener = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...args) => {
      this.listeners.set(
        event,
        (this.listeners.get(event) ?? []).filter((l) => l !== wrapped),
      );
      return listener(...args);
    };
    return this.on(event, wrapped);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }
}

export interface FakeEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
}

export function fakeEvent(): FakeEvent {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
  };
}

export const fake = {
  calls: [] as string[],
  lockGranted: true,
  isPackaged: false,
  loginItem: false,
  /** Set when the app really quits (a before-quit that nobody prevented). */
  quitted: false,
  /** Set once app.quit() was called (Browser::is_quitting). */
  quitting: false,
  /** Runs inside `new Tray()`, to observe what exists when the tray appears. */
  onTray: undefined as (() => void) | undefined,
  trays: [] as FakeTray[],
  windows: [] as FakeBrowserWindow[],
  notifications: [] as FakeNotification[],
  activationHandler: undefined as Listener | undefined,
  /** Electron's notification presenter (see FakePresenter): created lazily, as the real one is. */
  presenter: undefined as FakePresenter | undefined,
  /** Action Center presses waiting for the COM class (see activateFromActionCenter). */
  waitingForActivator: [] as string[],
  /** g_activation_arguments: the one activation kept until handleActivation is called (last one wins). */
  storedActivation: undefined as Delivered['details'] | undefined,
  ipcHandlers: new Map<string, Listener>(),
  /** Where dialog.showSaveDialog "saves" (undefined: the person cancels it). */
  saveTo: undefined as string | undefined,
  reset(): void {
    this.saveTo = undefined;
    this.calls.length = 0;
    this.lockGranted = true;
    this.isPackaged = false;
    this.loginItem = false;
    this.quitted = false;
    this.quitting = false;
    powerEmitter.listeners.clear();
    this.onTray = undefined;
    this.trays.length = 0;
    this.windows.length = 0;
    this.notifications.length = 0;
    this.activationHandler = undefined;
    this.presenter = undefined;
    this.waitingForActivator.length = 0;
    this.storedActivation = undefined;
    this.ipcHandlers.clear();
    appEmitter.listeners.clear();
    vi.clearAllMocks();
  },
};

const appEmitter = new Emitter();

export const app = {
  get isPackaged() {
    return fake.isPackaged;
  },
  requestSingleInstanceLock: vi.fn(() => {
    fake.calls.push('lock');
    return fake.lockGranted;
  }),
  setName: vi.fn((name: string) => void fake.calls.push(`name:${name}`)),
  setPath: vi.fn((name: string, value: string) => void fake.calls.push(`path:${name}=${value}`)),
  setAppUserModelId: vi.fn((id: string) => void fake.calls.push(`aumid:${id}`)),
  setToastActivatorCLSID: vi.fn((id: string) => void fake.calls.push(`clsid:${id}`)),
  whenReady: vi.fn(async () => void fake.calls.push('ready')),
  /** Only `temp` is asked for (tray.ts): Electron's is the OS temp folder (base::GetTempDir), as here. */
  getPath: vi.fn((name: string) => {
    if (name !== 'temp') throw new Error(`fake app.getPath(${name}) is not modelled`);
    return os.tmpdir();
  }),
  getAppPath: vi.fn(() => path.resolve(import.meta.dirname, '..', '..')),
  getLoginItemSettings: vi.fn(() => ({ openAtLogin: fake.loginItem, executableWillLaunchAtLogin: fake.loginItem })),
  setLoginItemSettings: vi.fn((s: { openAtLogin: boolean }) => {
    fake.loginItem = s.openAtLogin;
  }),
  on: vi.fn((event: string, listener: Listener) => appEmitter.on(event, listener)),
  emit: (event: string, ...args: unknown[]) => appEmitter.emit(event, ...args),
  quit: vi.fn(() => {
    fake.calls.push('quit');
    fake.quitting = true;
    const event = fakeEvent();
    appEmitter.emit('before-quit', event);
    if (!event.defaultPrevented) fake.quitted = true;
  }),
  exit: vi.fn(),
};

export class FakeTray extends Emitter {
  image: unknown;
  tooltip = '';
  template: unknown[] = [];
  destroyed = false;
  constructor(image: unknown) {
    super();
    fake.calls.push('tray');
    fake.onTray?.();
    this.image = image;
    fake.trays.push(this);
  }
  setImage = vi.fn((image: unknown) => void (this.image = image));
  setToolTip = vi.fn((text: string) => void (this.tooltip = text));
  setContextMenu = vi.fn((menu: { template: unknown[] }) => void (this.template = menu.template));
  getBounds = vi.fn(() => ({ x: 1800, y: 1040, width: 24, height: 40 }));
  isDestroyed = (): boolean => this.destroyed;
  destroy = vi.fn(() => void (this.destroyed = true));
}
export { FakeTray as Tray };

export const Menu = { buildFromTemplate: vi.fn((template: unknown[]) => ({ template })) };

/**
 * nativeImage as far as the tray can observe it (electron shell/common/api/electron_api_native_image.cc):
 *
 * - `createFromPath(<.ico>)` on Windows keeps the path (`NativeImage(isolate, hicon_path)`); every HICON it is
 *   asked for is read from the file at that size (`GetHICON` → `ReadICOFromPath` → `LoadImage(…, size, size,
 *   LR_LOADFROMFILE)`). The fake reads the file's ICONDIR to know which sizes it holds.
 * - Other images are an ImageSkia: a list of representations, each a bitmap with a scale factor. `createEmpty()`
 *   has none; `addRepresentation({scaleFactor = 1, width, height, buffer})` adds one when the buffer decodes as PNG
 *   or JPEG, or is raw N32 of at least width × height × 4 bytes (skia_util.cc `AddImageSkiaRepFromBuffer`);
 *   `createFromBitmap(buffer, {width, height, scaleFactor})` makes an image of that one representation.
 * - Which representation serves a request is Chromium's `ImageSkiaStorage::FindRepresentation` (ui/gfx/image/
 *   image_skia.cc): the exact scale, else the closest larger one, else the closest smaller one.
 */
export interface FakeRepresentation {
  scaleFactor: number;
  width: number;
  height: number;
  bitmap: Buffer;
}

export class FakeNativeImage {
  readonly representations: FakeRepresentation[] = [];
  constructor(
    /** Set for an image made from an .ico path (Windows keeps the path). */
    readonly icoPath?: string,
    readonly file?: string,
  ) {}
  /** The pixel sizes of the .ico's entries (its ICONDIR), for an .ico image. */
  get icoSizes(): number[] {
    if (!this.icoPath) return [];
    const ico = readFileSync(this.icoPath);
    return Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + i * 16] || 256);
  }
  isEmpty(): boolean {
    return !this.icoPath && !this.file && this.representations.length === 0;
  }
  getScaleFactors(): number[] {
    return this.representations.map((r) => r.scaleFactor);
  }
  addRepresentation(options: { scaleFactor?: number; width?: number; height?: number; buffer?: Buffer }): void {
    const { scaleFactor = 1, width = 0, height = 0, buffer } = options;
    if (!buffer || width === 0 || height === 0 || buffer.length < width * height * 4) return;
    this.representations.push({ scaleFactor, width, height, bitmap: Buffer.from(buffer) });
  }
  /** image_skia.cc `FindRepresentation(scale, …)`: exact, else closest larger (downscale), else closest smaller. */
  findRepresentation(scale: number): FakeRepresentation | undefined {
    const exact = this.representations.find((r) => r.scaleFactor === scale);
    if (exact) return exact;
    const larger = this.representations.filter((r) => r.scaleFactor > scale);
    if (larger.length) return larger.reduce((a, b) => (b.scaleFactor < a.scaleFactor ? b : a));
    const smaller = this.representations.filter((r) => r.scaleFactor < scale);
    return smaller.length ? smaller.reduce((a, b) => (b.scaleFactor > a.scaleFactor ? b : a)) : undefined;
  }
}

export const nativeImage = {
  createFromPath: vi.fn((file: string) =>
    file.toLowerCase().endsWith('.ico') && existsSync(file)
      ? new FakeNativeImage(file, file)
      : new FakeNativeImage(undefined, file),
  ),
  createEmpty: vi.fn(() => new FakeNativeImage()),
  createFromBitmap: vi.fn((bitmap: Buffer, options: { width: number; height: number; scaleFactor?: number }) => {
    const image = new FakeNativeImage();
    image.addRepresentation({ ...options, buffer: bitmap });
    return image;
  }),
};

/**
 * How many pixels of its own the Windows tray icon has when the shell shows it at `smallIconSize` pixels
 * (GetSystemMetrics(SM_CXSMICON): 16 at 100 %, 20, 24, 32, 40, 48 at 300 %): electron_api_tray.cc
 * `Tray::SetImage` → `NativeImage::GetHICON(SM_CXSMICON)`. From an .ico, `LoadImage` at that size takes the entry
 * of that size (the closest one when there is none: LookupIconIdFromDirectoryEx). Any other image becomes
 * `IconUtil::CreateHICONFromSkBitmap(image_.AsBitmap())`: the 1× representation (`ImageSkia::GetBitmap` →
 * `FindRepresentation(1.0f)`), at its own pixel size, whatever size was asked — which the shell then scales.
 * A crisp icon is one where this equals `smallIconSize`.
 */
export function windowsTrayIconPixels(image: unknown, smallIconSize: number): number | undefined {
  const img = image as FakeNativeImage;
  if (img.icoPath) {
    const sizes = img.icoSizes;
    if (sizes.includes(smallIconSize)) return smallIconSize;
    return sizes.reduce((a, b) => (Math.abs(b - smallIconSize) < Math.abs(a - smallIconSize) ? b : a));
  }
  return img.findRepresentation(1)?.width;
}

/**
 * Electron 45's Windows notification presenter and toast activator, as far as the app can observe them:
 *
 * - It exists only once something asks for it: `ElectronBrowserClient::GetNotificationPresenter()` creates it
 *   lazily (shell/browser/electron_browser_client.cc), called by `Notification.isSupported()` and by
 *   `new Notification()` (shell/browser/api/electron_api_notification.cc `IsSupported`, the constructor).
 *   Creating it registers the toast activator COM class (notifications/win/notification_presenter_win.cc
 *   `NotificationPresenter::Create` → windows_toast_activator.cc `NotificationActivator::RegisterActivator`,
 *   whose `CoRegisterClassObject` runs in a task posted back to the UI thread: modelled by `setImmediate`).
 *   `handleActivation` alone registers nothing.
 * - It keeps every platform notification in a `std::set<Notification*>` (notification_presenter.h/.cc
 *   `notifications_`, `CreateNotification`): `Notification.close()` only hides the toast and drops the delegate
 *   (electron_api_notification.cc `Notification::Close`: `Dismiss()`, `set_delegate(nullptr)`); the object stays
 *   in the set (the Dismissed event calls `NotificationDismissed(false, …)`: not destroyed).
 * - A press is looked up by tag in that set, in pointer order, first match wins, and dropped when that object
 *   has no delegate (windows_toast_activator.cc `HandleToastActivation`). The order is the heap's: here a bump
 *   allocator that grows upward (the first toast has the lowest address) and reuses freed blocks lowest first,
 *   so an older closed toast with the same tag is always found before a newer live one — the case a reused id
 *   meets sooner or later on a real heap.
 */
export interface PlatformNotification {
  address: number;
  tag: string;
  delegate: FakeNotification | undefined;
}

export class FakePresenter {
  activatorRegistered = false;
  readonly notifications: PlatformNotification[] = [];
  private readonly freed: number[] = [];
  private top = 0x1000;
  constructor() {
    fake.calls.push('presenter');
    setImmediate(() => {
      this.activatorRegistered = true;
      fake.calls.push('activator');
      // COM hands the presses it held (the one that launched `-Embedding`) to the class now registered.
      for (const invoked of fake.waitingForActivator.splice(0)) handleToastActivation(invoked);
    });
  }
  create(tag: string, delegate: FakeNotification): PlatformNotification {
    this.freed.sort((a, b) => a - b);
    const address = this.freed.shift() ?? (this.top += 0x100);
    const platform = { address, tag, delegate };
    this.notifications.push(platform);
    return platform;
  }
  remove(platform: PlatformNotification): void {
    const i = this.notifications.indexOf(platform);
    if (i < 0) return;
    this.notifications.splice(i, 1);
    this.freed.push(platform.address);
  }
  /** `for (auto* n : presenter->notifications()) if (tag == tag_str) { target = n; break; }` */
  find(tag: string | undefined): PlatformNotification | undefined {
    return [...this.notifications].sort((a, b) => a.address - b.address).find((n) => n.tag === tag);
  }
}

function getNotificationPresenter(): FakePresenter {
  return (fake.presenter ??= new FakePresenter());
}

/**
 * windows_toast_activator.cc `HandleToastActivation`: the `handleActivation` callback first (or the one stored
 * slot until there is one), then the first platform notification with that tag, whose delegate — if it still has
 * one — gets `action` or `click`.
 */
function handleToastActivation(invoked: string): void {
  const { details, tag } = deliver(invoked);
  if (fake.activationHandler) fake.activationHandler(details);
  else fake.storedActivation = details;
  const presenter = fake.presenter;
  if (!presenter) return;
  const target = presenter.find(tag)?.delegate;
  if (!target) return;
  if (details.type === 'action') {
    const index = details.actionIndex ?? -1;
    if (index >= 0) target.emit('action', { actionIndex: index, selectionIndex: -1 }, index, -1);
  } else target.emit('click', fakeEvent());
}

/**
 * A press on a toast while the app runs: Windows raises the toast's in-process Activated event, which hands a
 * structured (`type=action…`) press to `HandleToastActivation` (windows_toast_notification.cc
 * `ToastEventHandler::Invoke`, electron#51147) and a body click straight to its own Notification.
 */
export function pressLiveToast(notification: FakeNotification, index: number | 'body'): void {
  const xml = notification.options.toastXml ?? '';
  if (index === 'body') {
    const platform = notification.platform;
    if (platform?.delegate) platform.delegate.emit('click', fakeEvent());
    return;
  }
  const action = elements(xml, 'action')[index];
  if (!action) throw new Error(`the toast has no button ${index}`);
  handleToastActivation(action.arguments ?? '');
}

/**
 * A press in the Action Center on a toast of an earlier run (after a reboot, sign-out or crash): Windows calls
 * the COM class registered for the CLSID (LocalServer32 = `Contactor.exe -Embedding` when nothing runs). The
 * press reaches the app only once it has registered the class, i.e. once its presenter exists; until then COM
 * holds it, and a run that never creates the presenter never gets it.
 */
export function activateFromActionCenter(toastXml: string, index: number | 'body'): void {
  const toast = elements(toastXml, 'toast')[0];
  const invoked = index === 'body' ? (toast?.launch ?? '') : (elements(toastXml, 'action')[index]?.arguments ?? '');
  if (fake.presenter?.activatorRegistered) handleToastActivation(invoked);
  else fake.waitingForActivator.push(invoked);
}

export class FakeNotification extends Emitter {
  static isSupported = vi.fn(() => !!getNotificationPresenter());
  static handleActivation = vi.fn((handler: Listener) => {
    fake.calls.push('handleActivation');
    fake.activationHandler = handler;
    // windows_toast_activator.cc SetActivationHandler: a stored activation is delivered at once.
    const stored = fake.storedActivation;
    fake.storedActivation = undefined;
    if (stored) handler(stored);
  });
  platform: PlatformNotification | undefined;
  constructor(
    readonly options: {
      id?: string;
      title?: string;
      body?: string;
      actions?: { type: string; text?: string }[];
      toastXml?: string;
    },
  ) {
    super();
    // electron_api_notification.cc: the constructor asks for the presenter and refuses an id over kMaxTagLength.
    getNotificationPresenter();
    if ((options.id ?? '').length > 64) throw new Error('id must not exceed 64 characters');
    fake.notifications.push(this);
  }
  /** `Notification::Show`: Close(), then a new platform object in the presenter's set; bad toastXml fails. */
  show = vi.fn(() => {
    this.detach();
    this.platform = getNotificationPresenter().create(this.options.id ?? crypto.randomUUID(), this);
    const xmlError = this.options.toastXml === undefined ? undefined : xmlLoadError(this.options.toastXml);
    // windows_toast_notification.cc CreateToastXmlDocument: XmlDocumentFromString failed → NotificationFailed
    // (notification.cc: the delegate's `failed`, then Destroy() takes it out of the set).
    if (xmlError) {
      const platform = this.platform;
      this.platform = undefined;
      setImmediate(() => {
        this.emit('failed', fakeEvent(), `XML: Invalid XML, ERROR ${xmlError}`);
        fake.presenter?.remove(platform);
      });
    }
  });
  /** `Notification::Close`: hide and drop the delegate; the platform object stays in the presenter's set. */
  close = vi.fn(() => this.detach());
  private detach(): void {
    if (this.platform) this.platform.delegate = undefined;
    this.platform = undefined;
  }
}
export { FakeNotification as Notification };

let nextWebContentsId = 1;

/** A WebFrameMain as electron.d.ts describes it: processId + routingId identify it; url is Chromium's. */
export interface FakeFrame {
  processId: number;
  routingId: number;
  url: string;
}

export class FakeBrowserWindow extends Emitter {
  openHandler: Listener | undefined;
  readonly webContents = Object.assign(new Emitter(), {
    id: nextWebContentsId++,
    mainFrame: { processId: 4000 + nextWebContentsId, routingId: 1, url: '' } as FakeFrame,
    send: vi.fn(),
    setWindowOpenHandler: vi.fn((handler: Listener) => void (this.openHandler = handler)),
  });
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    fake.windows.push(this);
  }
  loadedFile: string | undefined;
  /** Sets the frame URL as Electron's loadFile + Chromium's canonicaliser would (chromium-file-url.ts). */
  loadFile = vi.fn(async (file: string) => {
    this.loadedFile = file;
    this.webContents.mainFrame.url = frameUrlAfterLoadFile(file);
  });
  showInactive = vi.fn();
  show = vi.fn();
  focus = vi.fn();
  setPosition = vi.fn();
  isDestroyed = (): boolean => this.destroyed;
  destroy = vi.fn(() => void (this.destroyed = true));
}
export { FakeBrowserWindow as BrowserWindow };

const display = { workArea: { x: 0, y: 0, width: 1920, height: 1040 } };
/** powerMonitor: only `shutdown` (docs/api/power-monitor.md: Linux and macOS) is used. */
const powerEmitter = new Emitter();
export const powerMonitor = {
  on: vi.fn((event: string, listener: Listener) => powerEmitter.on(event, listener)),
  removeListener: vi.fn((event: string, listener: Listener) => {
    powerEmitter.listeners.set(
      event,
      (powerEmitter.listeners.get(event) ?? []).filter((l) => l !== listener),
    );
  }),
  emit: (event: string, ...args: unknown[]) => powerEmitter.emit(event, ...args),
};

/**
 * Windows ends the session (sign-out, shutdown, restart): electron/electron shell/browser/native_window_views_win.cc
 * WM_ENDSESSION hands `session-end` to every window Electron has (WindowList), then terminates the process at once
 * (`TerminateCurrentProcessImmediately`) unless a quit already began. With no window nothing hears it. Returns
 * whether the process was terminated; work the handlers started asynchronously would not have finished.
 */
export function endWindowsSession(): { terminated: boolean; heardBy: number } {
  let heardBy = 0;
  for (const win of [...fake.windows]) {
    if (win.isDestroyed()) continue;
    if ((win.listeners.get('session-end') ?? []).length) heardBy++;
    win.emit('session-end', { ...fakeEvent(), reasons: ['logoff'] });
  }
  return { terminated: !fake.quitting, heardBy };
}

export const screen = { getDisplayMatching: vi.fn(() => display), getPrimaryDisplay: vi.fn(() => display) };

export const ipcMain = {
  handle: vi.fn((channel: string, handler: Listener) => void fake.ipcHandlers.set(channel, handler)),
  removeHandler: vi.fn((channel: string) => void fake.ipcHandlers.delete(channel)),
};
export const clipboard = { writeText: vi.fn() };
export const shell = { openPath: vi.fn(async () => '') };
/**
 * dialog.showSaveDialog([window, ]options) resolves `{canceled, filePath}` (electron shell/browser/api/electron_api_dialog.cc
 * ShowSaveDialog; lib/browser/api/dialog.ts takes an optional BrowserWindow first). Tests set `fake.saveTo`: the
 * path "chosen", or undefined for a canceled dialog.
 */
export const dialog = {
  showErrorBox: vi.fn(),
  showSaveDialog: vi.fn(async (..._args: unknown[]) =>
    fake.saveTo === undefined ? { canceled: true, filePath: '' } : { canceled: false, filePath: fake.saveTo },
  ),
};
