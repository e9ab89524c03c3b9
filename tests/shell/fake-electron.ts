/**
 * A stand-in for the `electron` module (the real one downloads its binary on import and throws here).
 * Use it with `vi.mock('electron', () => import('./fake-electron.js'))`; every call the shell makes is a
 * vi.fn spy, and `fake.calls` records the order of the calls that make up startup.
 */
import path from 'node:path';
import { vi } from 'vitest';
import { frameUrlAfterLoadFile } from './chromium-file-url.js';

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
  /** Runs inside `new Tray()`, to observe what exists when the tray appears. */
  onTray: undefined as (() => void) | undefined,
  trays: [] as FakeTray[],
  windows: [] as FakeBrowserWindow[],
  notifications: [] as FakeNotification[],
  activationHandler: undefined as Listener | undefined,
  ipcHandlers: new Map<string, Listener>(),
  reset(): void {
    this.calls.length = 0;
    this.lockGranted = true;
    this.isPackaged = false;
    this.loginItem = false;
    this.quitted = false;
    this.onTray = undefined;
    this.trays.length = 0;
    this.windows.length = 0;
    this.notifications.length = 0;
    this.activationHandler = undefined;
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
  setAppUserModelId: vi.fn((id: string) => void fake.calls.push(`aumid:${id}`)),
  setToastActivatorCLSID: vi.fn((id: string) => void fake.calls.push(`clsid:${id}`)),
  whenReady: vi.fn(async () => void fake.calls.push('ready')),
  getAppPath: vi.fn(() => path.resolve(import.meta.dirname, '..', '..')),
  getLoginItemSettings: vi.fn(() => ({ openAtLogin: fake.loginItem, executableWillLaunchAtLogin: fake.loginItem })),
  setLoginItemSettings: vi.fn((s: { openAtLogin: boolean }) => {
    fake.loginItem = s.openAtLogin;
  }),
  on: vi.fn((event: string, listener: Listener) => appEmitter.on(event, listener)),
  emit: (event: string, ...args: unknown[]) => appEmitter.emit(event, ...args),
  quit: vi.fn(() => {
    fake.calls.push('quit');
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
 * nativeImage as the tray uses it: an image from a file, resized, read as raw BGRA pixels (transparent here),
 * and an image made from such pixels (electron.d.ts NativeImage toBitmap / createFromBitmap).
 */
const imageFrom = (file: string, size = 16) => ({
  file,
  size,
  resize: (o: { width: number; height: number }) => imageFrom(file, o.width),
  toBitmap: () => Buffer.alloc(size * size * 4),
});
export const nativeImage = {
  createFromPath: vi.fn((file: string) => imageFrom(file)),
  createFromBitmap: vi.fn((bitmap: Buffer, options: { width: number; height: number; scaleFactor?: number }) => ({
    bitmap,
    options,
  })),
};

export class FakeNotification extends Emitter {
  static isSupported = vi.fn(() => true);
  static handleActivation = vi.fn((handler: Listener) => {
    fake.calls.push('handleActivation');
    fake.activationHandler = handler;
  });
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
    fake.notifications.push(this);
  }
  show = vi.fn();
  close = vi.fn();
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
export const screen = { getDisplayMatching: vi.fn(() => display), getPrimaryDisplay: vi.fn(() => display) };

export const ipcMain = {
  handle: vi.fn((channel: string, handler: Listener) => void fake.ipcHandlers.set(channel, handler)),
  removeHandler: vi.fn((channel: string) => void fake.ipcHandlers.delete(channel)),
};
export const clipboard = { writeText: vi.fn() };
export const shell = { openPath: vi.fn(async () => '') };
export const dialog = { showErrorBox: vi.fn() };
