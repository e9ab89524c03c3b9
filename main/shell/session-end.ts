/**
 * Sign-out, shutdown and restart. Electron emits no `before-quit` then:
 * - Windows: WM_ENDSESSION reaches only Electron's own windows, which emit `session-end`; right after that the
 *   process is terminated (electron/electron shell/browser/native_window_views_win.cc, WM_ENDSESSION, then
 *   `TerminateCurrentProcessImmediately` unless a quit already began). A tray app has no window most of the
 *   time, so a hidden one that is never shown exists only to hear it. Only synchronous work gets done.
 * - Linux and macOS: powerMonitor `shutdown` (docs/api/power-monitor.md): preventDefault delays the shutdown
 *   until the app quits.
 */
import { BrowserWindow, powerMonitor } from 'electron';

export function onSessionEnd(platform: NodeJS.Platform, end: () => void, quit: () => void): { dispose(): void } {
  let ended = false;
  const once = (): void => {
    if (ended) return;
    ended = true;
    end();
  };
  if (platform === 'win32') {
    const listener = new BrowserWindow({
      show: false,
      width: 1,
      height: 1,
      skipTaskbar: true,
      focusable: false,
      webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true },
    });
    listener.on('session-end', once);
    return { dispose: () => (listener.isDestroyed() ? undefined : listener.destroy()) };
  }
  // electron.d.ts types the listener without arguments; the native side passes the event preventDefault delays.
  const onShutdown = (...args: unknown[]): void => {
    (args[0] as { preventDefault?: () => void } | undefined)?.preventDefault?.();
    once();
    quit();
  };
  powerMonitor.on('shutdown', onShutdown);
  return { dispose: () => void powerMonitor.removeListener('shutdown', onShutdown) };
}
