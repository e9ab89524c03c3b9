/**
 * What `contactor up` starts (docs/contract.md#cli): on Windows with the desktop app present, the tray app,
 * which hosts the bridge; everywhere else, or with `--headless`, a detached `contactor serve`. Pure: the
 * platform, environment, own executable and file lookup come in, so every case is tested on any OS.
 */
import path from 'node:path';

/** The argument the tray app takes to start without showing a window (main/shell/autostart.ts). */
export const HIDDEN_FLAG = '--hidden';
const APP_EXE = 'Contactor.exe';

export interface LaunchSituation {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** process.execPath: the app's own exe when this CLI runs inside it in Node mode. */
  execPath: string;
  exists: (file: string) => boolean;
  headless?: boolean;
  /** `--data-dir` was given: the app takes its data dir from its config only, so only headless can honour it. */
  dataDirFlag?: boolean;
  /** `--port` was given: the app takes its port from its config only, so only headless can honour it. */
  portFlag?: boolean;
  /** `-c <file>`, resolved: the app reads CONTACTOR_CONFIG. */
  configPath?: string;
  /** How to run `contactor serve` with this CLI: the entry script and its flags. */
  serveArgs: string[];
}

export interface LaunchChoice {
  mode: 'headless' | 'desktop';
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Why this mode, for `up`'s message. */
  reason: string;
}

/** The tray app to start, and how it was found; undefined when there is none. */
export function findDesktopApp(
  s: Pick<LaunchSituation, 'env' | 'execPath' | 'exists'>,
): { exe: string; how: string } | undefined {
  const underApp =
    s.env.ELECTRON_RUN_AS_NODE === '1' && path.win32.basename(s.execPath).toLowerCase() === APP_EXE.toLowerCase();
  if (underApp) return { exe: s.execPath, how: 'the app this CLI runs in' };
  if (s.env.LOCALAPPDATA) {
    // electron-builder's per-user NSIS default (electron-builder.yml: perMachine: false).
    const installed = path.win32.join(s.env.LOCALAPPDATA, 'Programs', 'contactor', APP_EXE);
    if (s.exists(installed)) return { exe: installed, how: 'the installed app' };
  }
  return undefined;
}

export function chooseLaunch(s: LaunchSituation): LaunchChoice {
  const headless = (reason: string): LaunchChoice => ({
    mode: 'headless',
    command: s.execPath,
    args: s.serveArgs,
    env: s.env,
    reason,
  });
  if (s.headless) return headless('--headless');
  if (s.platform !== 'win32') return headless('the desktop app runs on Windows only');
  const app = findDesktopApp(s);
  if (!app) return headless('the desktop app is not installed');
  if (s.dataDirFlag) return headless('--data-dir is given, and the desktop app takes its data dir from its config');
  if (s.portFlag) return headless('--port is given, and the desktop app takes its port from its config');
  return {
    mode: 'desktop',
    command: app.exe,
    args: [HIDDEN_FLAG],
    env: desktopEnv(s.env, s.configPath),
    reason: `${app.how} (${app.exe})`,
  };
}

/** Without ELECTRON_RUN_AS_NODE (the CLI under the app has it), the exe would start as Node, not as the app. */
function desktopEnv(env: NodeJS.ProcessEnv, configPath: string | undefined): NodeJS.ProcessEnv {
  const out = Object.fromEntries(Object.entries(env).filter(([k]) => k.toUpperCase() !== 'ELECTRON_RUN_AS_NODE'));
  return configPath ? { ...out, CONTACTOR_CONFIG: configPath } : out;
}
