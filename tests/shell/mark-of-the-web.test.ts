/**
 * The Mark of the Web on a saved agent file (mark-of-the-web.ts). On NTFS `<file>:Zone.Identifier` names a stream
 * of `<file>`; here (Linux) the same open creates a sibling file of that name, which lets the test read back
 * exactly the bytes Windows would get in the stream.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeMarkedFile } from '../../main/shell/mark-of-the-web.js';

const root = mkdtempSync(path.join(tmpdir(), 'contactor-motw-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writeMarkedFile', () => {
  it('Windows: the bytes, then the stream browsers write (Chromium quarantine_win.cc), byte for byte', () => {
    const file = path.join(root, 'setup.exe.txt');
    writeMarkedFile(file, Buffer.from('MZ\x90\x00agent bytes', 'latin1'), 'win32');
    expect(readFileSync(file, 'latin1')).toBe('MZ\x90\x00agent bytes');
    expect(readFileSync(`${file}:Zone.Identifier`)).toEqual(
      Buffer.from('5b5a6f6e655472616e736665725d0d0a5a6f6e6549643d330d0a', 'hex'), // [ZoneTransfer]\r\nZoneId=3\r\n
    );
  });

  it('Windows, a volume without streams (FAT32, exFAT): nothing is left behind and the person is told why', () => {
    const file = path.join(root, 'on-a-stick.txt');
    // The stream cannot be opened: as on a volume that keeps none.
    mkdirSync(`${file}:Zone.Identifier`);
    expect(() => writeMarkedFile(file, Buffer.from('agent bytes'), 'win32')).toThrow(
      /^not saved: Windows could not mark .*on-a-stick\.txt as downloaded \(EISDIR\); .*FAT32 or exFAT/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('elsewhere: the bytes only (no stream to write)', () => {
    const file = path.join(root, 'linux.txt');
    writeMarkedFile(file, Buffer.from('agent bytes'), 'linux');
    expect(readFileSync(file, 'utf8')).toBe('agent bytes');
    expect(existsSync(`${file}:Zone.Identifier`)).toBe(false);
  });
});
