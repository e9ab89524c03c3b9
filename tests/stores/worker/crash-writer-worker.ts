/**
 * Child process for the worker store's kill -9 test: writes tasks through WorkerTaskStore as fast as it
 * can and prints each task id only once the store said it is durable, until the parent kills it.
 * Mode `turns`: a few tasks per event-loop turn, each id printed from its `afterCommit` callback (how a
 * send is answered). Mode `flush`: one task at a time, printed after `flush`.
 * Usage: crash-writer-worker.ts <file> <turns|flush>
 */
import { WorkerTaskStore } from '../../../main/stores/worker/worker-task-store.js';
import { chunk, firstEvents, makeTask, moved } from '../make-task.js';
import { writeLineSync } from '../pipe-line.js';

const [file, mode] = process.argv.slice(2);
if (!file || (mode !== 'turns' && mode !== 'flush'))
  throw new Error('usage: crash-writer-worker.ts <file> <turns|flush>');
const store = new WorkerTaskStore({ file });
let i = 0;

function writeOne(): string {
  const task = makeTask({ id: `crash-${i}` });
  store.create(task, firstEvents(task), { scope: 'claude', messageId: `m-${i}`, payloadHash: 'h' });
  i += 1;
  const { task: working, event } = moved(task, 'working', 4);
  store.commit(task.id, [chunk(task, 3, 'x'.repeat(200)), event], working);
  return task.id;
}

if (mode === 'flush') {
  for (;;) {
    const id = writeOne();
    store.flush();
    writeLineSync(id);
  }
} else {
  const turn = (): void => {
    for (let n = 0; n < 4; n += 1) {
      const id = writeOne();
      // Synchronous, so a printed id is never ahead of what the parent can see.
      store.afterCommit((lost) => (lost ? undefined : writeLineSync(id)));
    }
    setImmediate(turn);
  };
  turn();
}
