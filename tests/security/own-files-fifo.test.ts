/**
 * The bridge's own files replaced by a FIFO (platform/protected-files.ts `openOwnFileForAppend`,
 * `readOwnFile`). An agent runs as the person and can reach the data dir: `rm logs/agents/x.log; mkfifo
 * logs/agents/x.log`, or the same with `token` or `bridge.json`. Opening a FIFO waits for the other end, and
 * these opens are synchronous: the bridge's next write to that log would stop the whole bridge (its event
 * loop), the next start would hang reading its token, every CLI command reading the token or the discovery
 * file likewise. Each must return at once. Run in a child process: a hung open cannot be interrupted in the
 * test's own thread; the child's timeout only bounds a failure, a passing run ends as soon as it returns.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/bridge.js';

const OPENER = path.join(REPO_ROOT, 'main', 'platform', 'protected-files.ts');
const DATA_DIR = path.join(REPO_ROOT, 'main', 'config', 'data-dir.ts');
const LOCATE = path.join(REPO_ROOT, 'main', 'cli', 'bridge-client', 'locate.ts');

/** Runs `script` (an ES module body) in a child with tsx; what it printed, or a failure when it hung. */
function inChild(script: string): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(child.signal, 'it waited for the other end of the FIFO').toBeNull();
  expect(child.stderr).toBe('');
  return child.stdout.trim();
}

function fifo(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
}

describe.skipIf(process.platform === 'win32')('a log replaced by a FIFO', () => {
  it('a log: the append is refused at once', () => {
    const dataDir = tempDir();
    const log = path.join(dataDir, 'logs', 'agents', 'planter.log');
    fifo(log);
    const printed = inChild(`
      const { openOwnFileForAppend } = await import(${JSON.stringify(OPENER)});
      try { openOwnFileForAppend(${JSON.stringify(dataDir)}, ${JSON.stringify(log)}); console.log('opened'); }
      catch (err) { console.log('refused: ' + err.message); }`);
    expect(printed).toBe(
      `refused: ${log}: not written, it is not a plain file; remove it, the bridge creates the file again`,
    );
  }, 90_000);

  it('the token: a start makes a new one in its place; the CLI reads none', () => {
    const dataDir = tempDir();
    fifo(path.join(dataDir, 'token'));
    const printed = inChild(`
      const { readTokenFile } = await import(${JSON.stringify(LOCATE)});
      console.log('cli: ' + readTokenFile(${JSON.stringify(dataDir)}));
      const { loadOrCreateToken } = await import(${JSON.stringify(DATA_DIR)});
      console.log('start: ' + loadOrCreateToken(${JSON.stringify(dataDir)}).length);`);
    expect(printed).toBe('cli: undefined\nstart: 43');
    expect(lstatSync(path.join(dataDir, 'token')).isFile()).toBe(true);
  }, 90_000);

  it('the discovery file: the CLI finds no bridge there', () => {
    const dataDir = tempDir();
    fifo(path.join(dataDir, 'bridge.json'));
    const printed = inChild(`
      const { readDiscovery } = await import(${JSON.stringify(LOCATE)});
      console.log('discovery: ' + readDiscovery(${JSON.stringify(dataDir)}));`);
    expect(printed).toBe('discovery: undefined');
  }, 90_000);
});
