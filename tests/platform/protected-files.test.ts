/**
 * The bridge's own files by real path and by identity (main/platform/protected-files.ts), on real files:
 * a config symlink re-pointed after start is followed, a hard link anywhere is the same file, and files
 * that merely look alike are not the bridge's.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProtectedFiles } from '../../main/platform/protected-files.js';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'contactor-own-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('ProtectedFiles', () => {
  it("knows the data dir's files by identity, under any name, and nothing else", async () => {
    const data = path.join(dir, 'data');
    mkdirSync(path.join(data, 'logs'), { recursive: true });
    writeFileSync(path.join(data, 'token'), 'secret\n');
    writeFileSync(path.join(data, 'logs', 'bridge.log'), 'log\n');
    writeFileSync(path.join(dir, 'copy'), 'secret\n');
    linkSync(path.join(data, 'logs', 'bridge.log'), path.join(dir, 'innocent.txt'));
    const own = new ProtectedFiles([data]);
    const ident = (p: string) => statSync(p, { bigint: true });
    expect(await own.holdsFile(ident(path.join(dir, 'innocent.txt')))).toBe(true);
    expect(await own.holdsFile(ident(path.join(data, 'token')))).toBe(true);
    expect(await own.holdsFile(ident(path.join(dir, 'copy')))).toBe(false);
    expect(await own.holdsPath(path.join(data, 'new-file'))).toBe(true);
    expect(await own.holdsPath(path.join(dir, 'innocent.txt'))).toBe(false);
  });

  it('follows a config symlink to its target at each check, also after it is re-pointed', async () => {
    const link = path.join(dir, 'config.yaml');
    const first = path.join(dir, 'a.yaml');
    const second = path.join(dir, 'b.yaml');
    writeFileSync(first, 'a: 1\n');
    writeFileSync(second, 'b: 1\n');
    symlinkSync(first, link);
    const own = new ProtectedFiles([link]);
    expect(await own.holdsPath(first)).toBe(true);
    expect(await own.holdsPath(second)).toBe(false);
    unlinkSync(link);
    symlinkSync(second, link);
    expect(await own.holdsPath(second)).toBe(true);
    expect(await own.holdsFile(statSync(second, { bigint: true }))).toBe(true);
    expect(await own.holdsFile(statSync(first, { bigint: true }))).toBe(false);
  });
});
