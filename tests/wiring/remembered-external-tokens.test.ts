/**
 * The external agents' tokens the bridge has verified join its secrets (wiring/bridge-files.ts), bounded: a
 * flood of distinct valid names (each one minted by a holder of the install token) cannot grow the list the
 * scrubber walks past 256, and the install token never leaves it.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBridgeFiles } from '../../main/wiring/bridge-files.js';
import { tempDir } from '../helpers/bridge.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('remembered external tokens', () => {
  it('are kept once each, at most 256, the longest-known forgotten first', () => {
    const dir = tempDir();
    const files = openBridgeFiles(path.join(dir, 'data'), true);
    cleanup = () => {
      files.close();
      rmSync(dir, { recursive: true, force: true });
    };
    const install = files.secret!;
    files.rememberExternalToken('ext.a.1');
    files.rememberExternalToken('ext.a.1');
    expect(files.bridgeSecrets).toEqual([install, 'ext.a.1']);
    for (let i = 2; i <= 257; i += 1) files.rememberExternalToken(`ext.a.${i}`);
    expect(files.bridgeSecrets.length).toBe(257);
    expect(files.bridgeSecrets[0]).toBe(install);
    expect(files.bridgeSecrets).not.toContain('ext.a.1');
    expect(files.bridgeSecrets.slice(1, 3)).toEqual(['ext.a.2', 'ext.a.3']);
    expect(files.bridgeSecrets.at(-1)).toBe('ext.a.257');
  });
});
