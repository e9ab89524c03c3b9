/**
 * The Windows config's move from %APPDATA%\contactor (deleted by an uninstall with --delete-app-data) to
 * %USERPROFILE%\.contactor (main/config/config-move.ts): real files, every starting point a user can be in.
 * A config is never lost and never overwritten; the move is reported once.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reportConfigMove } from '../../main/cli/settings.js';
import { loadConfig, resolveConfigPath } from '../../main/config/config.js';
import { describeConfigMove, MOVED_NOTE, moveLegacyConfig } from '../../main/config/config-move.js';

const RESOURCES = path.resolve(import.meta.dirname, '..', '..', 'resources');

let dir: string;
let oldFile: string;
let newFile: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-config-move-'));
  oldFile = path.join(dir, 'AppData', 'Roaming', 'contactor', 'config.yaml');
  newFile = path.join(dir, '.contactor', 'config.yaml');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('moving the config from the former Windows default', () => {
  it('old only: copies it whole, keeps the old file, leaves a note beside it, and reports it once', () => {
    const mine = 'port: 9123\n# my agents, hand-written\n';
    put(oldFile, mine);
    const move = moveLegacyConfig(oldFile, newFile);
    expect(move).toEqual({ kind: 'copied', from: oldFile, to: newFile });
    expect(readFileSync(newFile, 'utf8')).toBe(mine);
    if (process.platform !== 'win32') expect(statSync(newFile).mode & 0o777).toBe(0o600);
    // No temp file left beside it.
    expect(readdirSync(path.dirname(newFile))).toEqual(['config.yaml']);
    // The old file is untouched (an older version still reads it), with a note saying where the config went.
    expect(readFileSync(oldFile, 'utf8')).toBe(mine);
    expect(readFileSync(path.join(path.dirname(oldFile), MOVED_NOTE), 'utf8')).toContain(newFile);
    expect(describeConfigMove(move!)).toContain(`copied ${oldFile} to ${newFile}`);
    // Once: the next start finds the new file and has nothing to say, even after the old one was edited.
    writeFileSync(oldFile, 'port: 1\n');
    expect(moveLegacyConfig(oldFile, newFile)).toBeUndefined();
    expect(readFileSync(newFile, 'utf8')).toBe(mine);
  });

  it('new only: nothing to do, nothing written', () => {
    put(newFile, 'port: 9124\n');
    expect(moveLegacyConfig(oldFile, newFile)).toBeUndefined();
    expect(readFileSync(newFile, 'utf8')).toBe('port: 9124\n');
    expect(readdirSync(dir)).toEqual(['.contactor']);
  });

  it('both: the new one wins and neither is changed (never overwritten, no note)', () => {
    put(oldFile, 'port: 1111\n');
    put(newFile, 'port: 2222\n');
    expect(moveLegacyConfig(oldFile, newFile)).toBeUndefined();
    expect(readFileSync(newFile, 'utf8')).toBe('port: 2222\n');
    expect(readFileSync(oldFile, 'utf8')).toBe('port: 1111\n');
    expect(readdirSync(path.dirname(oldFile))).toEqual(['config.yaml']);
  });

  it('old unreadable: no new file is made (no default config in its place), the old one stays the one read', () => {
    // Something at the old path that cannot be read as a file: a folder (chmod 000 does not stop root).
    mkdirSync(oldFile, { recursive: true });
    const move = moveLegacyConfig(oldFile, newFile);
    expect(move).toMatchObject({ kind: 'failed', from: oldFile, to: newFile });
    expect(readdirSync(path.dirname(newFile))).toEqual([]);
    expect(describeConfigMove(move!)).toContain(`still reading ${oldFile}`);
  });

  it('the CLI says it on stderr once per command, even when a failed copy is retried by each look-up', () => {
    mkdirSync(oldFile, { recursive: true });
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (let i = 0; i < 3; i++) reportConfigMove(moveLegacyConfig(oldFile, newFile)!);
      expect(write).toHaveBeenCalledTimes(1);
      expect(String(write.mock.calls[0]![0])).toBe(
        `contactor: ${describeConfigMove(moveLegacyConfig(oldFile, newFile)!)}\n`,
      );
    } finally {
      write.mockRestore();
    }
  });

  it.runIf(process.platform !== 'win32' && process.getuid?.() !== 0)(
    'old without read permission: reported, nothing made',
    () => {
      put(oldFile, 'port: 9125\n');
      chmodSync(oldFile, 0o000);
      expect(moveLegacyConfig(oldFile, newFile)).toMatchObject({ kind: 'failed' });
      expect(readdirSync(path.dirname(newFile))).toEqual([]);
    },
  );

  // On Windows (the Windows lane runs this file under the Windows Node): the real default paths.
  it.runIf(process.platform === 'win32')(
    'resolveConfigPath and loadConfig move %APPDATA%\\contactor\\config.yaml to %USERPROFILE%\\.contactor',
    () => {
      const env = {
        USERPROFILE: dir,
        APPDATA: path.join(dir, 'AppData', 'Roaming'),
        LOCALAPPDATA: path.join(dir, 'AppData', 'Local'),
      };
      put(oldFile, 'port: 9126\n');
      const loaded = loadConfig({ env, resourcesDir: RESOURCES, nodePath: process.execPath });
      expect(loaded.path).toBe(newFile);
      expect(loaded.config.port).toBe(9126);
      expect(loaded.created).toBeUndefined();
      expect(loaded.moved).toEqual({ kind: 'copied', from: oldFile, to: newFile });
      expect(resolveConfigPath(undefined, env)).toEqual({ path: newFile, explicit: false });
    },
  );
});
