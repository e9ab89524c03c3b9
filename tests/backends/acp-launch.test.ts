import { describe, expect, it } from 'vitest';
import { describeLaunch, planLaunch, type LaunchInput } from '../../main/backends/acp/launch.js';
import type { Win32Probe } from '../../main/backends/process/win32-command.js';

const noFiles: Win32Probe = { isFile: () => false, readText: () => undefined };

function input(over: Partial<LaunchInput>): LaunchInput {
  return {
    command: ['agent', '--acp'],
    platform: 'native',
    agentCwd: '/work/p',
    hostCwd: '/work/p',
    env: { PATH: '/usr/bin', CONTACTOR_AGENT: 'a' },
    forwardEnv: [],
    hostPlatform: 'linux',
    probe: noFiles,
    ...over,
  };
}

describe('planLaunch', () => {
  it('runs a native command as configured', () => {
    expect(planLaunch(input({}))).toEqual({
      program: 'agent',
      args: ['--acp'],
      cwd: '/work/p',
      env: { PATH: '/usr/bin', CONTACTOR_AGENT: 'a' },
      verbatim: false,
      via: 'direct',
    });
  });

  it('launches a WSL agent through wsl.exe with its Linux cwd and forwarded variables', () => {
    const plan = planLaunch(
      input({
        platform: 'wsl',
        distro: 'Ubuntu',
        agentCwd: '/mnt/c/Users/x/p',
        hostCwd: 'C:\\Users\\x\\p',
        hostPlatform: 'win32',
        env: { Path: 'C:\\Windows', CONTACTOR_AGENT: 'a', CONTACTOR_TOKEN: 't', API_KEY: 'k', WSLENV: 'EXISTING/p' },
        forwardEnv: ['CONTACTOR_AGENT', 'CONTACTOR_TOKEN', 'API_KEY'],
      }),
    );
    expect(plan).toMatchObject({
      program: 'wsl.exe',
      args: ['-d', 'Ubuntu', '--cd', '/mnt/c/Users/x/p', '--exec', 'agent', '--acp'],
      cwd: undefined,
      via: 'wsl',
    });
    expect(plan.env).toMatchObject({ WSL_UTF8: '1', WSLENV: 'EXISTING/p:CONTACTOR_AGENT:CONTACTOR_TOKEN:API_KEY' });
  });

  it('uses the default distro when none is configured', () => {
    expect(planLaunch(input({ platform: 'wsl', hostPlatform: 'win32' })).args.slice(0, 2)).toEqual(['--cd', '/work/p']);
  });

  it('resolves Windows commands through the shim resolver on a Windows host', () => {
    const probe: Win32Probe = { isFile: (f) => f === 'C:\\tools\\agent.exe', readText: () => undefined };
    const plan = planLaunch(
      input({ platform: 'windows', hostPlatform: 'win32', hostCwd: 'C:\\p', env: { Path: 'C:\\tools' }, probe }),
    );
    expect(plan).toMatchObject({ program: 'C:\\tools\\agent.exe', args: ['--acp'], cwd: 'C:\\p', via: 'direct' });
  });

  it('describes a launch without its environment', () => {
    expect(describeLaunch(planLaunch(input({ command: ['my agent', 'x'] })))).toBe('"my agent" x');
  });
});
