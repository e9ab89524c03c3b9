/**
 * The environment of the processes the bridge starts from the desktop app.
 * ELECTRON_RUN_AS_NODE is read by every Electron exe at startup (electron/electron shell/app/electron_main_win.cc,
 * `IsEnvSet(kRunAsNode)` behind the runAsNode fuse), so it must reach only the app's own exe.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLI_DIR_VAR,
  envForProgram,
  installedCliDir,
  withCliDirFirst,
  wslCommandWithCliDir,
} from '../../main/backends/process/agent-env.js';
import { planLaunch } from '../../main/backends/acp/launch.js';
import { CliBackend } from '../../main/backends/subprocess-cli/backend.js';
import type { Turn, TurnReporter } from '../../main/ports.js';
import { SubprocessCliAgentSchema } from '../../main/schema/config.js';
import { fixture } from '../fixtures/cli/processes.js';

const APP = 'C:\\Users\\Zoë\\AppData\\Local\\Programs\\contactor\\Contactor.exe';
const CLI_DIR = 'C:\\Users\\Zoë\\AppData\\Local\\Programs\\contactor\\resources\\cli';

describe('envForProgram', () => {
  it('gives ELECTRON_RUN_AS_NODE to the app exe only, however Windows spells its path', () => {
    const env = { Path: 'C:\\Windows', ELECTRON_RUN_AS_NODE: '1' };
    expect(envForProgram(APP.toLowerCase(), env, APP, 'win32')).toEqual({
      Path: 'C:\\Windows',
      ELECTRON_RUN_AS_NODE: '1',
    });
    for (const program of ['C:\\Program Files\\Microsoft VS Code\\Code.exe', 'cursor', 'node.exe', 'wsl.exe'])
      expect(envForProgram(program, env, APP, 'win32')).toEqual({ Path: 'C:\\Windows' });
    // Outside the app (appExe undefined) nobody gets it, even if the bridge's own env had it.
    expect(envForProgram(APP, env, undefined, 'win32')).toEqual({ Path: 'C:\\Windows' });
  });
});

describe('the CLI folder on every agent PATH', () => {
  it('puts the folder first on the Windows PATH, whatever its case, once', () => {
    const env = withCliDirFirst({ Path: `C:\\Windows;${CLI_DIR};C:\\bin`, X: '1' }, CLI_DIR, 'win32');
    expect(env).toEqual({ Path: `${CLI_DIR};C:\\Windows;C:\\bin`, X: '1', [CLI_DIR_VAR]: CLI_DIR });
    expect(withCliDirFirst({ PATH: '/bin' }, undefined, 'linux')).toEqual({ PATH: '/bin' });
  });

  it('finds the folder only in the packaged Windows layout', () => {
    const files = new Set([`C:\\app\\resources\\cli\\contactor.cmd`, `C:\\app\\resources\\cli\\contactor.cjs`]);
    expect(installedCliDir('C:\\app\\resources', 'win32', (f) => files.has(f))).toBe('C:\\app\\resources\\cli');
    expect(installedCliDir('C:\\repo\\resources', 'win32', () => false)).toBeUndefined();
    expect(installedCliDir('C:\\app\\resources', 'linux', () => true)).toBeUndefined();
  });

  it('a WSL agent gets the folder as a /p path and first on its Linux PATH', () => {
    const plan = planLaunch({
      command: ['dsh', '--acp'],
      platform: 'wsl',
      distro: 'Ubuntu',
      agentCwd: '/home/me/p',
      hostCwd: 'C:\\',
      env: withCliDirFirst({ Path: 'C:\\Windows', CONTACTOR_AGENT: 'dsh' }, CLI_DIR, 'win32'),
      forwardEnv: ['CONTACTOR_AGENT', CLI_DIR_VAR],
      hostPlatform: 'win32',
      probe: { isFile: () => false, readText: () => undefined },
      appExe: APP,
    });
    expect(plan.env.WSLENV).toBe(`CONTACTOR_AGENT:${CLI_DIR_VAR}/p`);
    expect(plan.env.ELECTRON_RUN_AS_NODE).toBeUndefined();
    expect(plan.args.slice(0, 6)).toEqual(['-d', 'Ubuntu', '--cd', '/home/me/p', '--exec', 'sh']);
    expect(plan.args.slice(-2)).toEqual(['dsh', '--acp']);
  });

  // The prefix runs inside a WSL distro (a POSIX sh); Windows itself has no sh to run it with.
  it.skipIf(process.platform === 'win32')(
    'the WSL prefix really prepends the folder and keeps every argument intact (run with sh here)',
    () => {
      const [sh, ...args] = wslCommandWithCliDir(['sh', '-c', 'printf "%s\\n" "$PATH" "$1"', 'x', 'a "b" $c; d']);
      const out = execFileSync(sh!, args, {
        env: { PATH: '/usr/bin:/bin', [CLI_DIR_VAR]: '/mnt/c/app/resources/cli' },
      });
      expect(out.toString().split('\n')).toEqual(['/mnt/c/app/resources/cli:/usr/bin:/bin', 'a "b" $c; d', '']);
      const plain = execFileSync(sh!, [...args.slice(0, 3), 'sh', '-c', 'printf %s "$PATH"'], {
        env: { PATH: '/usr/bin:/bin' },
      });
      expect(plain.toString()).toBe('/usr/bin:/bin');
    },
  );
});

describe('CliBackend spawn env', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'contactor-env-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  async function envSeenBy(command: string[], appExe: string | undefined): Promise<Record<string, string>> {
    const texts: string[] = [];
    const reporter: TurnReporter = {
      text: (t) => texts.push(t),
      content: () => undefined,
      progress: () => undefined,
      receipt: () => undefined,
      askPermission: () => Promise.reject(new Error('no')),
    };
    const config = SubprocessCliAgentSchema.parse({ kind: 'subprocess_cli', command, cwd: dir });
    const cli = new CliBackend({
      name: 'a',
      config,
      baseEnv: { PATH: process.env.PATH ?? '', ELECTRON_RUN_AS_NODE: '1' },
      appExe,
    });
    const turn: Turn = {
      taskId: 't', contextId: 'c', messageId: 'm', agent: 'a', text: 'x', attachments: [],
      delegationDepth: 0, visitedAgents: [], followUp: false, signal: new AbortController().signal,
    }; // prettier-ignore
    await cli.run(turn, reporter);
    await cli.close();
    return JSON.parse(texts.join('')) as Record<string, string>;
  }

  it('the app exe (here: this Node, standing for Contactor.exe) runs in Node mode', async () => {
    expect((await envSeenBy(fixture('env-dump.mjs', '--all'), process.execPath)).ELECTRON_RUN_AS_NODE).toBe('1');
  });

  it('any other program never inherits it', async () => {
    const env = await envSeenBy(fixture('env-dump.mjs', '--all'), '/opt/Contactor/contactor');
    expect(env.ELECTRON_RUN_AS_NODE).toBeUndefined();
  });
});
