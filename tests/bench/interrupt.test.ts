/**
 * Ctrl-C while `npm run bench` fills the scale section's database (bench/lib/interrupt.ts): the fill
 * stops, the store is closed, the partial database and the run's temp folder are removed, and the
 * bench exits 130. run.ts runs as `npm run bench` starts it (node --import tsx), with a fill far too
 * large to finish, its temp folder and cache in this test's own folder; SIGINT goes once the bench
 * says it started filling.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { REPO_ROOT } from '../../bench/lib/children.js';
import { tempDir } from '../helpers/bridge.js';
import { eventually } from '../helpers/wait.js';

let dir: string;
let bench: ChildProcess | undefined;

beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  if (bench && bench.exitCode === null && bench.signalCode === null) bench.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

it('Ctrl-C while filling stops the fill, removes the partial database and the temp folder, and exits 130', async () => {
  const cacheDir = path.join(dir, 'cache');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--only=scale', '--runs=1'], {
    cwd: REPO_ROOT,
    env: { ...process.env, TMPDIR: dir, BENCH_CACHE_DIR: cacheDir, BENCH_SCALE_TASKS: '50000000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  bench = child;
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('scale: filling 50000000 tasks into')) resolve();
    });
    child.once('exit', () => reject(new Error(`the bench ended before it started filling:\n${stderr}`)));
  });
  // Once the fill has opened its database, SIGINT lands in the middle of writing it.
  const database = stderr.match(/filling 50000000 tasks into (\S+\.db) /)?.[1];
  expect(database).toBeDefined();
  await eventually(() => existsSync(`${database!}-wal`), 'the fill writing its database');

  child.kill('SIGINT');
  const { code, signal } = await exited;

  expect({ code, signal }).toEqual({ code: 130, signal: null });
  expect(stderr).toContain('interrupted: stopped, and removed the partial database and ');
  expect(readdirSync(cacheDir)).toEqual([]);
  expect(readdirSync(dir).filter((name) => name.startsWith('contactor-bench-'))).toEqual([]);
});
