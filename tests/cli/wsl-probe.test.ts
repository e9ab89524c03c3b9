/**
 * WSL distros as doctor sees them: wsl.exe's UTF-16LE output decoded, and each `platform: wsl` agent's
 * distro checked — against a stand-in wsl.exe on PATH, run for real through runCommand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../main/cli/command-runner.js';
import { wslChecks } from '../../main/cli/wsl/wsl-checks.js';
import { decodeWslOutput, listWslDistros } from '../../main/cli/wsl/wsl-probe.js';
import { BridgeConfigSchema, type BridgeConfig } from '../../main/schema/config.js';
import { makeStandIns, type StandIns } from './stand-ins.js';

let standIns: StandIns;
beforeAll(() => (standIns = makeStandIns()));
afterAll(() => standIns.cleanup());

function config(agents: Record<string, unknown>): BridgeConfig {
  return BridgeConfigSchema.parse({ agents });
}

const wslAgent = (distro?: string) => ({
  kind: 'acp',
  command: ['dsh'],
  platform: 'wsl',
  ...(distro ? { distro } : {}),
});

describe('decodeWslOutput', () => {
  it('reads UTF-16LE with and without a BOM, and UTF-8 (WSL_UTF8=1)', () => {
    expect(decodeWslOutput(Buffer.from('Ubuntu\r\nDebian\r\n', 'utf16le'))).toBe('Ubuntu\r\nDebian\r\n');
    expect(decodeWslOutput(Buffer.from('\uFEFFUbuntu-22.04\r\n', 'utf16le'))).toBe('Ubuntu-22.04\r\n');
    expect(decodeWslOutput(Buffer.from('Ubuntu\nÜbung\n', 'utf8'))).toBe('Ubuntu\nÜbung\n');
    expect(decodeWslOutput(Buffer.alloc(0))).toBe('');
  });
});

describe('listWslDistros', () => {
  it('lists the distros a UTF-16 wsl.exe prints', async () => {
    const env = { PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: 'Ubuntu-24.04,Debian' };
    expect(await listWslDistros(runCommand, env)).toEqual({ kind: 'listed', distros: ['Ubuntu-24.04', 'Debian'] });
    expect(await listWslDistros(runCommand, { ...env, WSL_UTF8: '1' })).toEqual({
      kind: 'listed',
      distros: ['Ubuntu-24.04', 'Debian'],
    });
  });

  it("says absent without wsl.exe, and failed (with wsl.exe's words) when none is installed", async () => {
    expect(await listWslDistros(runCommand, { PATH: standIns.path() })).toEqual({ kind: 'absent' });
    const none = await listWslDistros(runCommand, { PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: '' });
    expect(none).toEqual({
      kind: 'failed',
      reason: 'wsl.exe -l -q exited with code 255: Windows Subsystem for Linux has no installed distributions.',
    });
  });
});

describe('wslChecks (doctor)', () => {
  it('plain Linux without wsl.exe: skipped, said so', async () => {
    const checks = await wslChecks({
      config: config({ d: wslAgent('Ubuntu') }),
      platform: 'linux',
      env: { PATH: standIns.path() },
      run: runCommand,
    });
    expect(checks).toEqual([{ name: 'wsl', status: 'skip', detail: 'skipped: not on Windows/WSL' }]);
  });

  it('Windows without WSL: a failure with the install hint only when an agent needs WSL', async () => {
    const env = { PATH: standIns.path() };
    const needed = await wslChecks({ config: config({ d: wslAgent() }), platform: 'win32', env, run: runCommand });
    expect(needed).toMatchObject([{ name: 'wsl', status: 'fail', detail: 'wsl.exe not found, but d runs in WSL' }]);
    expect(needed[0]!.fix).toContain('wsl --install');
    const unneeded = await wslChecks({ config: config({}), platform: 'win32', env, run: runCommand });
    expect(unneeded[0]!.status).toBe('skip');
  });

  it("lists the distros and checks each WSL agent's distro, case-insensitively, naming the installed ones", async () => {
    const env = { PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: 'Ubuntu,Debian' };
    const checks = await wslChecks({
      config: config({
        a: wslAgent('ubuntu'),
        b: wslAgent('Arch'),
        c: wslAgent(),
        native: { kind: 'acp', command: ['x'] },
      }),
      platform: 'linux',
      env,
      run: runCommand,
    });
    expect(checks.map((c) => `${c.name}:${c.status}`)).toEqual([
      'wsl:ok',
      'wsl distro for a:ok',
      'wsl distro for b:fail',
      'wsl distro for c:ok',
    ]);
    expect(checks[0]!.detail).toBe('distros: Ubuntu, Debian');
    expect(checks[2]!.detail).toBe('distro "Arch" is not installed (installed: Ubuntu, Debian)');
    expect(checks[2]!.fix).toBe('set agents.b.distro to one of Ubuntu, Debian, or `wsl --install -d Arch`');
  });

  it('no distro installed fails only when an agent needs one', async () => {
    const env = { PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: '' };
    const needed = await wslChecks({
      config: config({ a: wslAgent('Ubuntu') }),
      platform: 'win32',
      env,
      run: runCommand,
    });
    expect(needed).toMatchObject([{ name: 'wsl', status: 'fail' }]);
    expect(needed[0]!.detail).toContain('no installed distributions');
    const unneeded = await wslChecks({ config: undefined, platform: 'win32', env, run: runCommand });
    expect(unneeded[0]!.status).toBe('skip');
  });
});
