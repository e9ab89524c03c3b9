/** One bridge per data dir, even inside one process (the tray's reload must stop the old one first). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
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
});
