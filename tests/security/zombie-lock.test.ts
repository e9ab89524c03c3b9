/**
 * After a kill -9, a bridge that is dead but not yet reaped (a zombie) counted as alive
 * and its instance lock blocked a restart. A real zombie is made here: `sh` starts a child that exits
 * and then execs `sleep`, which never reaps it.
 * (The child outlives the exec by a moment so the shell cannot reap it first.)
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../main/cli/bridge-client/pid.js';
import { acquireInstanceLock, isProcessAlive } from '../../main/config/data-dir.js';
import { eventually } from '../helpers/wait.js';
import { tempDir } from '../helpers/bridge.js';

const parents: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) p.kill('SIGKILL');
});

/** The pid of a zombie that stays one while this test runs. */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  parents.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(Number(d))));
  // Dead but unreaped: still signalable, state Z in /proc.
  await eventually(() => readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '));
  return pid;
}

describe.skipIf(process.platform !== 'linux')('a zombie bridge', () => {
  it('is dead to the bridge and to the CLI (one check), while it is still in the process table', async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow(); // the kernel still lists it
    expect(isProcessAlive(pid)).toBe(false);
    expect(isAlive(pid)).toBe(false);
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it('does not block a restart: its lock is taken over', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'bridge.lock'), String(await zombie()));
    const release = acquireInstanceLock(dir);
    release();
    // A live owner still blocks.
    writeFileSync(path.join(dir, 'bridge.lock'), String(process.pid));
    expect(() => acquireInstanceLock(dir)).toThrow(/already using/);
  });
});
