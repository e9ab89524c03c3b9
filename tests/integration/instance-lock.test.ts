/** One bridge per data dir, even inside one process (the tray's reload must stop the old one first). */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireInstanceLock, instanceLockHolder } from '../../main/config/data-dir.js';
import { createBridge } from '../../main/wiring/wiring.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

let first: TestBridge | undefined;
const dirs: string[] = [];
afterAll(async () => {
  await first?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('instance lock', () => {
  it('refuses a second bridge on a data dir this process already serves, and allows it after stop', async () => {
    first = await startTestBridge();
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-lock-'));
    dirs.push(dir);
    const configPath = path.join(dir, 'config.yaml');
    writeFileSync(configPath, stringify({ port: 0, data_dir: first.dataDir, agents: { echo: echoAgent() } }));
    await expect(createBridge({ configPath })).rejects.toThrow(/already using/);

    await first.stop();
    const second = await createBridge({ configPath });
    await second.start();
    expect(second.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await second.stop();
  });

  it('a lock made a moment ago, its pid not written yet, is held; an old empty one is a leftover', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-lock-'));
    dirs.push(dir);
    const lock = path.join(dir, 'bridge.lock');
    // Another bridge between its open(wx) and its write: taking it over would let two bridges share the dir.
    writeFileSync(lock, '');
    expect(() => acquireInstanceLock(dir)).toThrow(`another contactor bridge is starting on ${dir}`);
    expect(instanceLockHolder(dir)).toBe('starting');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, anHourAgo, anHourAgo);
    expect(instanceLockHolder(dir)).toBeUndefined();
    const release = acquireInstanceLock(dir);
    expect(instanceLockHolder(dir)).toBe(process.pid);
    release();
  });
});
