import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../main/cli/command-runner.js';
import { eventually } from '../helpers/wait.js';

/**
 * The real spawn, with the child it made kept: the test reads the same stdout stream runCommand reads, so it
 * knows when the helper's line has been delivered instead of guessing how many loop turns that takes.
 */
const spawned: ChildProcess[] = [];
vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>();
  return {
    ...real,
    spawn: (...args: Parameters<typeof real.spawn>) => {
      const child = real.spawn(...args);
      spawned.push(child);
      return child;
    },
  };
});

const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('runCommand', () => {
  it('ends at its timeout even when a background child keeps the output pipe open', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-runner-'));
    dirs.push(dir);
    const pidFile = path.join(dir, 'bg.pid');
    // The timeout runs on fake timers: it ends the run only once the helper has printed and its daemon is up.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Like a helper that starts a daemon: it exits at once, the daemon inherits stdout and stays. The line
      // comes from /bin/echo, a process that has written it before the pid file exists; dash's builtin echo
      // keeps its output in the shell's buffer until a later flush, which can come after the pid file.
      const pending = runCommand('sh', ['-c', `/bin/echo started; sleep 60 & echo $! > ${pidFile}; exec sleep 60`], {
        timeoutMs: 5_000,
      });
      let seen = '';
      spawned.at(-1)!.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
      await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the daemon');
      // The line reaches runCommand's listener in the same 'data' event as this one.
      await eventually(() => seen.includes('started'), "the helper's line on stdout");
      vi.advanceTimersByTime(5_000);
      const result = await pending;
      pids.push(Number(readFileSync(pidFile, 'utf8')));
      expect(result.timedOut).toBe(true);
      expect(result.stdout.toString()).toContain('started');
    } finally {
      vi.useRealTimers();
    }
  });
});
