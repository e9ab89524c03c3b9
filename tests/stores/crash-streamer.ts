/**
 * Child process for the streamed-reply crash test: one task, then artifact chunks committed as events
 * alone (no task snapshot: what a streaming reply writes), each made durable (`flush`) before its seq is
 * printed, until the parent kills it. Usage: crash-streamer.ts <file> <task id>
 */
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask, moved } from './make-task.js';
import { writeLineSync } from './pipe-line.js';

const [file, id] = process.argv.slice(2);
if (!file || !id) throw new Error('usage: crash-streamer.ts <database file> <task id>');
const store = new SqliteTaskStore({ file });
const task = makeTask({ id });
store.create(task, firstEvents(task), { scope: 'claude', messageId: `m-${id}`, payloadHash: 'h' });
const { task: working, event } = moved(task, 'working', 3);
store.commit(id, [event], working);
store.flush();
for (let seq = 4; ; seq++) {
  store.commit(id, [chunk(task, seq, 'x'.repeat(1000))]);
  store.flush();
  // Synchronous, so a printed seq is never ahead of what the parent can see.
  writeLineSync(String(seq));
}
