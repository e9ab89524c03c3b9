/**
 * electron-builder.yml against electron-builder's own schema (offline), plus the choices the app depends on:
 * the appId is the AUMID the shell sets, RunAsNode stays on for the WSL CLI, and every extra resource exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_ID } from '../../main/shell/layout.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  validateConfiguration(c: unknown, l: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const config = (): any => parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'));

describe('electron-builder.yml', () => {
  it('validates against electron-builder’s schema', async () => {
    await expect(validateConfiguration(config(), new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('the check has teeth: a wrong value is rejected with a pointer to the docs', async () => {
    const broken = config();
    broken.nsis.oneClick = 'yes-please';
    await expect(validateConfiguration(broken, new DebugLogger(false))).rejects.toThrow(/oneClick/);
  });

  it('uses the AUMID the shell sets, per-user NSIS only for x64 (no portable target), and the uninstall hook', () => {
    const c = config();
    expect(c.appId).toBe(APP_ID);
    expect(c.executableName).toBe('Contactor');
    // portable.nsi wipes its unpack folder (RMDir /r $INSTDIR) on every start and exit: never shipped.
    expect(c.win.target).toEqual([{ target: 'nsis', arch: ['x64'] }]);
    expect(c.portable).toBeUndefined();
    expect(c.nsis).toMatchObject({ oneClick: true, perMachine: false, include: 'build/installer.nsh' });
    const nsh = readFileSync(path.join(ROOT, c.nsis.include), 'utf8');
    expect(nsh).toMatch(
      /!macro customUnInstall[\s\S]*\$\{ifNot\} \$\{isUpdated\}[\s\S]*DeleteRegValue HKCU "Software\\Microsoft\\Windows\\CurrentVersion\\Run" "\$\{APP_ID\}"/,
    );
  });

  it('keeps RunAsNode on (the WSL wrapper needs it) and hardens every other fuse', () => {
    const fuses = config().electronFuses;
    expect(fuses.runAsNode).toBe(true);
    expect(readFileSync(path.join(ROOT, 'resources', 'cli', 'contactor'), 'utf8')).toContain(
      'ELECTRON_RUN_AS_NODE=1 "$EXE"',
    );
    expect(fuses).toMatchObject({
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('ships what the app and the CLI look for, from files that exist', () => {
    const c = config();
    expect(c.npmRebuild).toBe(false);
    expect(c.asarUnpack).toContain('**/*.node');
    const targets = c.extraResources.map((r: { to: string }) => r.to);
    expect(targets).toEqual(
      expect.arrayContaining([
        'cli/contactor',
        'cli/contactor.cmd',
        'cli/contactor.cjs',
        'cli/top.mjs',
        'SKILL.md',
        'config.example.yaml',
        'agents',
        'icons',
      ]),
    );
    for (const r of c.extraResources as { from: string }[]) {
      if (!r.from.startsWith('out/')) expect(existsSync(path.join(ROOT, r.from)), r.from).toBe(true);
    }
    expect(existsSync(path.join(ROOT, c.win.icon))).toBe(true);
  });
});
