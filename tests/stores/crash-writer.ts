/**
 * Child process for the crash test: writes tasks through SqliteTaskStore as fast as it can and prints each
 * task id only after its writes were made durable (`flush`; the loop never yields, so the group commit
 * would never run on its own), until the parent kills it. Usage: crash-writer.ts <file>
 */
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask, moved } from './make-task.js';
import { writeLineSync } from './pipe-line.js';

const file = process.argv[2];
if (!file) throw new Error('usage: crash-writer.ts <database file>');
const store = new SqliteTaskStore({ file });
for (let i = 0; ; i++) {
  const task = makeTask({ id: `crash-${i}` });
  store.create(task, firstEvents(task), { scope: 'claude', messageId: `m-${i}`, payloadHash: 'h' });
  const { task: working, event } = moved(task, 'working', 4);
  store.commit(task.id, [chunk(task, 3, 'x'.repeat(200)), event], working);
  store.flush();
  // Synchronous, so a printed id is never ahead of what the parent can see.
  writeLineSync(task.id);
}
