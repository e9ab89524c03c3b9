/**
 * Child process for the WAL tests: commits <count> tasks through SqliteTaskStore, one transaction each,
 * then kills itself with SIGKILL, leaving the WAL a crash leaves (no checkpoint: the worker is asked
 * only after more commits than this writes, and the writer's own autocheckpoint needs ~40 MB).
 * Usage: crash-after-writes.ts <file> <count>
 */
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { firstEvents, makeTask, moved } from './make-task.js';

const [file, count] = process.argv.slice(2);
if (!file || !count) throw new Error('usage: crash-after-writes.ts <database file> <count>');
const store = new SqliteTaskStore({ file, checkpoints: { commitsPerCheckpoint: 1_000_000 } });
for (let i = 0; i < Number(count); i++) {
  const task = makeTask({ id: `wal-${i}` });
  store.create(task, firstEvents(task));
  const { task: working, event } = moved(task, 'working', 3);
  store.commit(task.id, [event], working);
  store.flush();
}
process.kill(process.pid, 'SIGKILL');
