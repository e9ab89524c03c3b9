/**
 * Another SQLite client reading the task database while the bridge runs (a person's `sqlite3 … "select"`,
 * a backup tool) must not cost a committed task. The attack as found: stop, start, one outside read with
 * Debian's sqlite3, three completed tasks, kill -9, start — and all three were gone, because the bridge
 * had closed a plain fd on the database after SQLite opened it, which drops the process's POSIX locks
 * (sqlite.org/howtocorrupt.html §2.2): the reader then took the lock, checkpointed and deleted the WAL
 * the bridge went on writing into.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { echoAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { SQLITE3, skipWithoutSqlite3 } from '../helpers/required-tool.js';
import { rpc, startBridgeProcess, stopBridgeProcess, type BridgeProcess } from './kill-harness.js';

// Without sqlite3 this skips, except with CI=true, where it fails: CI installs it (.ci/run).
describe.skipIf(process.platform === 'win32' || skipWithoutSqlite3('the outside-reader test'))(
  'an outside SQLite reader',
  () => {
    let dir: string | undefined;
    let bridge: BridgeProcess | undefined;
    afterEach(async () => {
      if (bridge) {
        bridge.child.kill('SIGKILL');
        await bridge.exited;
      }
      bridge = undefined;
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('costs no committed task across a kill -9 (stop, start, sqlite3 select, 3 sends, kill -9, start)', async () => {
      dir = tempDir();
      const { configPath, dataDir } = writeTestConfig(dir, { agents: { echo: echoAgent() } });
      const db = path.join(dataDir, 'contactor.db');

      bridge = await startBridgeProcess(configPath, dataDir, dir);
      await stopBridgeProcess(bridge);
      bridge = await startBridgeProcess(configPath, dataDir, dir);

      // The outside reader: a separate process with its own SQLite, as a person would run it.
      expect(execFileSync(SQLITE3, [db, 'select count(*) from tasks'], { encoding: 'utf8' }).trim()).toBe('0');

      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const reply = await rpc(bridge, 'message/send', {
          agent: 'echo',
          text: `hello ${i}`,
          messageId: `outside-reader-${i}`,
          configuration: { blocking: true },
        });
        expect(reply.result?.status?.state, JSON.stringify(reply)).toBe('completed');
        ids.push(reply.result.id as string);
      }

      bridge.child.kill('SIGKILL');
      await bridge.exited;
      bridge = await startBridgeProcess(configPath, dataDir, dir);
      for (const id of ids) {
        const reply = await rpc(bridge, 'tasks/get', { id });
        expect(reply.result?.status?.state, `task ${id}: ${JSON.stringify(reply.error)}`).toBe('completed');
      }
    }, 120_000);
  },
);
