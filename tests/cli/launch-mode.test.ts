/** What `contactor up` starts, decided from the platform, environment and own executable (launch-mode.ts). */
import { describe, expect, it } from 'vitest';
import { chooseLaunch, type LaunchSituation } from '../../main/cli/bridge-client/launch-mode.js';

const LOCAL = 'C:\\Users\\Zoë Test\\AppData\\Local';
const INSTALLED = `${LOCAL}\\Programs\\contactor\\Contactor.exe`;
const SERVE = ['/repo/bin/contactor.js', 'serve'];

function situation(over: Partial<LaunchSituation> & { files?: string[] }): LaunchSituation {
  const files = new Set(over.files ?? []);
  return {
    platform: 'win32',
    env: { LOCALAPPDATA: LOCAL, PATH: 'C:\\Windows' },
    execPath: 'C:\\Program Files\\nodejs\\node.exe',
    exists: (f) => files.has(f),
    serveArgs: SERVE,
    ...over,
  };
}

describe('chooseLaunch', () => {
  it('Linux: a headless `contactor serve` on this Node, whatever is installed', () => {
    const choice = chooseLaunch(
      situation({ platform: 'linux', execPath: '/usr/bin/node', env: { HOME: '/home/u' }, files: [INSTALLED] }),
    );
    expect(choice).toEqual({
      mode: 'headless',
      command: '/usr/bin/node',
      args: SERVE,
      env: { HOME: '/home/u' },
      reason: 'the desktop app runs on Windows only',
    });
  });

  it('Windows with the app installed per user: the tray app, hidden, without ELECTRON_RUN_AS_NODE', () => {
    const choice = chooseLaunch(
      situation({ env: { LOCALAPPDATA: LOCAL, ELECTRON_RUN_AS_NODE: '1', Foo: 'bar' }, files: [INSTALLED] }),
    );
    expect(choice.mode).toBe('desktop');
    expect(choice.command).toBe(INSTALLED);
    expect(choice.args).toEqual(['--hidden']);
    expect(choice.env).toEqual({ LOCALAPPDATA: LOCAL, Foo: 'bar' });
    expect(choice.reason).toContain('installed app');
  });

  it('Windows without the app: headless', () => {
    const choice = chooseLaunch(situation({}));
    expect(choice.mode).toBe('headless');
    expect(choice.command).toBe('C:\\Program Files\\nodejs\\node.exe');
    expect(choice.reason).toBe('the desktop app is not installed');
  });

  it('there is no portable build: a PORTABLE_EXECUTABLE_FILE left in the environment is not started', () => {
    const portable = 'D:\\Tools\\Contactor-1.0.0-portable.exe';
    const choice = chooseLaunch(
      situation({ env: { LOCALAPPDATA: LOCAL, PORTABLE_EXECUTABLE_FILE: portable }, files: [portable, INSTALLED] }),
    );
    expect(choice).toMatchObject({ mode: 'desktop', command: INSTALLED });
  });

  it('under the app (Contactor.exe in Node mode, not installed per user): that exe', () => {
    const exe = 'C:\\Program Files\\Contactor\\Contactor.exe';
    const choice = chooseLaunch(situation({ execPath: exe, env: { ELECTRON_RUN_AS_NODE: '1', elsewhere: 'x' } }));
    expect(choice).toMatchObject({ mode: 'desktop', command: exe, args: ['--hidden'], env: { elsewhere: 'x' } });
    expect(choice.reason).toContain('the app this CLI runs in');
  });

  it('Contactor.exe without ELECTRON_RUN_AS_NODE is not taken for the CLI running inside the app', () => {
    const choice = chooseLaunch(situation({ execPath: 'C:\\x\\Contactor.exe', env: {} }));
    expect(choice.mode).toBe('headless');
  });

  it('--headless wins on Windows with the app installed; the serve command keeps Node mode under the app', () => {
    const exe = INSTALLED;
    const env = { LOCALAPPDATA: LOCAL, ELECTRON_RUN_AS_NODE: '1' };
    const choice = chooseLaunch(situation({ headless: true, execPath: exe, env, files: [INSTALLED] }));
    expect(choice).toEqual({ mode: 'headless', command: exe, args: SERVE, env, reason: '--headless' });
  });

  it('--data-dir forces headless (the app cannot be given one); -c reaches the app as CONTACTOR_CONFIG', () => {
    expect(chooseLaunch(situation({ files: [INSTALLED], dataDirFlag: true })).mode).toBe('headless');
    const withConfig = chooseLaunch(situation({ files: [INSTALLED], configPath: 'C:\\cfg\\contactor.yaml' }));
    expect(withConfig.mode).toBe('desktop');
    expect(withConfig.env.CONTACTOR_CONFIG).toBe('C:\\cfg\\contactor.yaml');
  });

  it('--port forces headless: the app would listen on its configured port (the one `up --port` works around)', () => {
    const choice = chooseLaunch(situation({ files: [INSTALLED], portFlag: true }));
    expect(choice).toMatchObject({ mode: 'headless', args: SERVE });
    expect(choice.reason).toContain('--port');
  });
});
