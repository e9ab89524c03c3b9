/**
 * bridge.log and serve.log rotate as the audit log and the agents' logs do (platform/log-rotation.ts): a tray
 * app running for months no longer grows bridge.log without bound, and a detached `up` finds serve.log
 * rotated when it has grown past its size. The rotated bridge.log is reopened the one way the bridge opens its
 * own files (`openOwnFileForAppend`), so a link an agent planted where the log goes receives nothing.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../main/audit/logging.js';
import { rotateIfOver } from '../../main/platform/log-rotation.js';
import { openOwnFileForAppend } from '../../main/platform/protected-files.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'contactor-rotate-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const logFile = () => path.join(dataDir, 'logs', 'bridge.log');
const openHere = (file: string) => openOwnFileForAppend(dataDir, file);

describe('bridge.log', () => {
  it('rotates past its size: bridge.log, .1 and .2, none much larger than the limit, the oldest dropped', () => {
    const log = createLogger(dataDir, () => [], openHere, { maxBytes: 2000, keep: 2 });
    for (let i = 0; i < 200; i += 1) log.info({ i }, 'a line of the bridge log, long enough to add up');
    log.close();
    const files = ['bridge.log', 'bridge.log.1', 'bridge.log.2', 'bridge.log.3'].map((f) =>
      existsSync(path.join(dataDir, 'logs', f)),
    );
    expect(files).toEqual([true, true, true, false]);
    for (const f of ['bridge.log.1', 'bridge.log.2'])
      expect(statSync(path.join(dataDir, 'logs', f)).size).toBeLessThan(2000 + 200);
    // The newest line is in bridge.log, whole.
    const last = readFileSync(logFile(), 'utf8').trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({ i: 199 });
  });

  it.skipIf(process.platform === 'win32')(
    'reopened after rotating, never through a folder link an agent planted: nothing lands outside the data dir',
    () => {
      const outside = mkdtempSync(path.join(tmpdir(), 'contactor-victim-'));
      try {
        const log = createLogger(dataDir, () => [], openHere, { maxBytes: 2000, keep: 2 });
        log.info('first');
        // The agent, with its own tools, moves logs/ away and leaves a link to a folder of the user's.
        renameSync(path.join(dataDir, 'logs'), path.join(dataDir, 'logs-moved'));
        symlinkSync(outside, path.join(dataDir, 'logs'));
        for (let i = 0; i < 100; i += 1) log.info({ i }, 'a line of the bridge log, long enough to add up');
        log.close();
        expect(readdirSync(outside)).toEqual([]);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    },
  );
});

describe('serve.log (rotated at a start that finds it too large)', () => {
  it('a file past the size moves to .1 (.1 to .2); one within it stays', () => {
    const file = path.join(dataDir, 'serve.log');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, 'x'.repeat(50));
    rotateIfOver(file, 100, 2);
    expect(readFileSync(file, 'utf8')).toBe('x'.repeat(50));
    writeFileSync(file, 'first start\n'.repeat(20));
    rotateIfOver(file, 100, 2);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('first start\n'.repeat(20));
    writeFileSync(file, 'second start\n'.repeat(20));
    rotateIfOver(file, 100, 2);
    expect(readFileSync(`${file}.2`, 'utf8')).toBe('first start\n'.repeat(20));
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('second start\n'.repeat(20));
  });
});
