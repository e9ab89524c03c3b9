/**
 * A log replaced by a FIFO (platform/protected-files.ts `openOwnFileForAppend`). An agent runs as the person
 * and can reach the data dir: `rm logs/agents/x.log; mkfifo logs/agents/x.log`. Opening a FIFO for writing
 * waits for a reader, and the opener is synchronous, so the bridge's next write to that log would stop the
 * whole bridge (its event loop) until someone reads the FIFO. The open must return at once and refuse the
 * file. Run in a child process: a hung open cannot be interrupted in the test's own thread; the child's
 * timeout only bounds a failure, a passing run ends as soon as the open returns.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/bridge.js';

const OPENER = path.join(REPO_ROOT, 'main', 'platform', 'protected-files.ts');

describe.skipIf(process.platform === 'win32')('a log replaced by a FIFO', () => {
  it('is refused at once, and nothing waits for a reader', () => {
    const dataDir = tempDir();
    const log = path.join(dataDir, 'logs', 'agents', 'planter.log');
    mkdirSync(path.dirname(log), { recursive: true });
    expect(spawnSync('mkfifo', [log]).status).toBe(0);
    const script = `
      const { openOwnFileForAppend } = await import(${JSON.stringify(OPENER)});
      try { openOwnFileForAppend(${JSON.stringify(dataDir)}, ${JSON.stringify(log)}); console.log('opened'); }
      catch (err) { console.log('refused: ' + err.message); }`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.signal, 'the open waited for a reader of the FIFO').toBeNull();
    expect(child.stdout.trim()).toBe(
      `refused: ${log}: not written, it is not a plain file; remove it, the bridge creates the file again`,
    );
  }, 90_000);
});
