/**
 * A full disk under a running task, for real: the bridge's data dir is a small tmpfs, filled while the
 * agent works, so the commit of its reply fails with SQLITE_FULL. The task must not stay `working`
 * (its agent is gone): once space returns it ends `failed`, retryable, with the reason — seen over the
 * API, without a restart. Mounting needs root on Linux; elsewhere the test skips.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { integrationAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { rpc, startBridgeProcess, type BridgeProcess } from './kill-harness.js';

/** Whether this process may mount a tmpfs (root on Linux, outside a locked-down container). */
function canMountTmpfs(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(path.join(tmpdir(), 'contactor-mount-probe-'));
  try {
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status !== 0) return false;
    return spawnSync('umount', [probe]).status === 0;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Appends to `file` until the file system refuses with ENOSPC, in smaller and smaller writes. */
function fillUp(file: string): void {
  for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
    const chunk = Buffer.alloc(size, 0x66);
    for (;;) {
      try {
        appendFileSync(file, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        break;
      }
    }
  }
}

const untilState = async (bridge: BridgeProcess, id: string, done: (state: string) => boolean) => {
  for (;;) {
    const reply = await rpc(bridge, 'tasks/get', { id });
    if (done(reply.result?.status?.state)) return reply.result;
    await new Promise((r) => setTimeout(r, 1000));
  }
};

describe.skipIf(!canMountTmpfs())('a disk that fills up under a running task', () => {
  let dir: string | undefined;
  let mounted: string | undefined;
  let bridge: BridgeProcess | undefined;
  afterEach(async () => {
    if (bridge) {
      bridge.child.kill('SIGKILL');
      await bridge.exited;
    }
    bridge = undefined;
    if (mounted) spawnSync('umount', ['-l', mounted]);
    mounted = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ends the task failed (retryable) once space returns, instead of leaving it working for good', async () => {
    dir = tempDir();
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', dataDir]).status).toBe(0);
    mounted = dataDir;
    const gate = path.join(dir, 'gate');
    const { configPath } = writeTestConfig(dir, {
      dataDir,
      agents: { gated: integrationAgent('gate.mjs', [gate, String(1 << 20)]) },
    });
    bridge = await startBridgeProcess(configPath, dataDir, dir);

    // A blocking send: its answer is the bridge's word on what became of the task.
    const answer = rpc(bridge, 'message/send', {
      agent: 'gated',
      text: 'hold on',
      messageId: 'disk-full-1',
      configuration: { blocking: true },
    });
    let id: string | undefined;
    while (!id) {
      const open = await rpc(bridge, 'tasks/list', { states: ['working'], pageSize: 1 });
      id = open.result?.tasks?.[0]?.id;
      if (!id) await new Promise((r) => setTimeout(r, 1000));
    }

    // The disk fills while the agent works; its reply (1 MB: more than the WAL's space from earlier
    // commits, which SQLite reuses) then cannot be committed.
    const filler = path.join(dataDir, 'filler');
    fillUp(filler);
    writeFileSync(gate, '');
    const refused = await answer;
    expect(refused.error?.code, JSON.stringify(refused)).toBe(-32069);
    expect(refused.error.message).toMatch(/could not be stored: database or disk is full\. Free disk space/);
    expect(refused.error.data).toMatchObject({ taskId: id, retryable: true });
    // The failure could not be stored either: what is stored still says working, while no agent works.
    // The read answers so whenever it lands, also while that failure's write is still pending (showing it
    // would need a commit the full disk loses); tests/runtime/group-commit.test.ts holds that moment exactly.
    const stored = await rpc(bridge, 'tasks/get', { id });
    expect(stored.result?.status.state, JSON.stringify(stored)).toBe('working');

    rmSync(filler);
    const ended = await untilState(bridge, id, (state) => state !== 'working');
    expect(ended.status.state).toBe('failed');
    expect(ended.metadata.retryable).toBe(true);
    expect(JSON.stringify(ended.status.message)).toMatch(
      /could not store this task's progress \(database or disk is full\)/,
    );
    // The bridge lived through it and takes work again.
    const next = await rpc(bridge, 'message/send', { agent: 'gated', text: 'again', messageId: 'disk-full-2' });
    expect(next.result?.status?.state, JSON.stringify(next)).toBe('completed');
  }, 120_000);
});
