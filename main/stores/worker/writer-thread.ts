/**
 * The worker thread that owns the task database's one writing connection (worker-task-store.ts). It
 * receives groups of writes, commits each in one transaction, and answers with the groups it committed
 * or lost. Groups that queued while it was committing are taken together (`receiveMessageOnPort`), so
 * under load one COMMIT — one WAL append — serves several of the event loop's turns.
 *
 * A reply is posted only after its COMMIT returned: with `synchronous = NORMAL` the group is then in the
 * WAL file and survives a kill -9 (open-database.ts). After each reply the shared counter `replies` is
 * raised and notified, so the main thread can block on it (`Atomics.wait`) when it must (`flush`, reads).
 *
 * A group the main thread built before it heard of a lost one carries the old `losses` count: it may
 * build on the lost writes (a task row, a seq), so it is refused as lost too, never written half-right.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/**
 * One group of writes: each list is the statements' positional parameters, row after row, flat (see
 * WRITER_SOURCE).
 */
export interface WriteGroup {
  kind: 'write';
  gen: number;
  /** How many lost groups the main thread knew of when it began this group. */
  losses: number;
  /** 12 a row: (id, context_id, agent, state, created_at, updated_at, last_seq, key_scope, message_id, payload_hash, task_json, created_by_agent). */
  inserts: unknown[];
  /** 7 a row: (context_id, agent, state, updated_at, last_seq, task_json, id). */
  updates: unknown[];
  /** 3 a row: (task_id, seq, event_json). */
  events: unknown[];
}

export interface PruneRequest {
  kind: 'prune';
  states: string;
  olderThan: string | undefined;
  maxTasks: number | undefined;
}

export type WriterRequest = WriteGroup | PruneRequest | { kind: 'close' };

export type WriterReply =
  | { kind: 'written'; gens: number[]; lost?: string }
  | { kind: 'pruned'; deleted?: number; failed?: string }
  | { kind: 'closed' };

// Plain CommonJS run by `new Worker(..., { eval: true })`, as the WAL checkpointer's: no file to find next
// to a bundle. The SQL is the in-loop store's (sqlite.ts) with the same positional parameters.
const WRITER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const port = workerData.port;
const replies = new Int32Array(workerData.replies);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 10000');
db.pragma('foreign_keys = ON');
const sql = {
  begin: db.prepare('BEGIN IMMEDIATE'),
  commit: db.prepare('COMMIT'),
  rollback: db.prepare('ROLLBACK'),
  insertTask: db.prepare(
    'INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq, ' +
      'key_scope, message_id, payload_hash, task_json, created_by_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
  updateTask: db.prepare(
    'UPDATE tasks SET context_id = ?, agent = ?, state = ?, updated_at = ?, last_seq = ?, task_json = ? WHERE id = ?'),
  insertEvent: db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)'),
  countAll: db.prepare('SELECT count(*) AS n FROM tasks'),
  pruneOlder: db.prepare('DELETE FROM tasks WHERE state IN (SELECT value FROM json_each(?)) AND updated_at < ?'),
  pruneOldest: db.prepare('DELETE FROM tasks WHERE id IN (SELECT id FROM tasks ' +
    'WHERE state IN (SELECT value FROM json_each(?)) ORDER BY updated_at, id LIMIT ?)'),
};
let losses = 0;
function reply(message) {
  port.postMessage(message);
  Atomics.add(replies, 0, 1);
  Atomics.notify(replies, 0);
}
function writeGroups(groups) {
  const gens = groups.map((g) => g.gen);
  const stale = groups.find((g) => g.losses !== losses);
  if (stale) {
    losses += 1;
    return reply({ kind: 'written', gens, lost: 'an earlier group of writes was lost, and this one built on it' });
  }
  try {
    sql.begin.run();
    for (const g of groups) {
      const r = g.inserts;
      for (let i = 0; i < r.length; i += 12)
        sql.insertTask.run(r[i], r[i + 1], r[i + 2], r[i + 3], r[i + 4], r[i + 5], r[i + 6], r[i + 7], r[i + 8], r[i + 9], r[i + 10], r[i + 11]);
      const u = g.updates;
      for (let i = 0; i < u.length; i += 7) sql.updateTask.run(u[i], u[i + 1], u[i + 2], u[i + 3], u[i + 4], u[i + 5], u[i + 6]);
      const e = g.events;
      for (let i = 0; i < e.length; i += 3) sql.insertEvent.run(e[i], e[i + 1], e[i + 2]);
    }
    sql.commit.run();
    reply({ kind: 'written', gens });
  } catch (err) {
    if (db.inTransaction) sql.rollback.run();
    losses += 1;
    reply({ kind: 'written', gens, lost: String((err && err.message) || err) });
  }
}
function prune(request) {
  try {
    const deleted = db.transaction(() => {
      let n = 0;
      if (request.olderThan !== undefined) n += sql.pruneOlder.run(request.states, request.olderThan).changes;
      if (request.maxTasks !== undefined) {
        const all = sql.countAll.get().n;
        if (all > request.maxTasks) n += sql.pruneOldest.run(request.states, all - request.maxTasks).changes;
      }
      return n;
    })();
    reply({ kind: 'pruned', deleted });
  } catch (err) {
    reply({ kind: 'pruned', failed: String((err && err.message) || err) });
  }
}
function handle(first) {
  let next = first;
  while (next) {
    if (next.kind !== 'write') {
      if (next.kind === 'prune') prune(next);
      else if (next.kind === 'close') {
        db.close();
        reply({ kind: 'closed' });
        port.close();
        return;
      }
      next = receiveMessageOnPort(port)?.message;
      continue;
    }
    const groups = [next];
    next = undefined;
    for (;;) {
      const queued = receiveMessageOnPort(port);
      if (!queued) break;
      if (queued.message.kind !== 'write' || queued.message.losses !== groups[0].losses) {
        next = queued.message;
        break;
      }
      groups.push(queued.message);
    }
    writeGroups(groups);
  }
}
port.on('message', handle);
`;

/** How often a blocked wait looks whether the writer thread is still there. */
const THREAD_CHECK_MS = 1_000;

/** The main thread's end of the writer: posts requests, hears replies, and can wait for one. */
export class WriterThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly replies: Int32Array;
  private listening = false;

  constructor(file: string, onReply: (reply: WriterReply) => void, onExit: (err: Error) => void) {
    const shared = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    this.worker = new Worker(WRITER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        port: port2,
        replies: shared,
      },
      transferList: [port2],
    });
    this.worker.unref();
    this.worker.on('error', (err) => onExit(err));
    this.worker.on('exit', (code) => onExit(new Error(`the task store's writer thread exited (code ${code})`)));
    this.port = port1;
    this.replies = new Int32Array(shared);
    this.port.on('message', onReply);
    this.port.unref();
  }

  post(request: WriterRequest): void {
    this.port.postMessage(request);
  }

  /**
   * While something is in flight the port keeps the process alive, so an exit never drops a group
   * that was promised an answer; idle, it does not.
   */
  hold(inFlight: boolean): void {
    if (inFlight === this.listening) return;
    this.listening = inFlight;
    if (inFlight) this.port.ref();
    else this.port.unref();
  }

  /**
   * Blocks this thread until `done()`, handing each reply that arrives to `onReply` meanwhile (replies
   * are taken off the port here, so the 'message' listener never sees them twice).
   */
  waitUntil(done: () => boolean, onReply: (reply: WriterReply) => void): void {
    while (!done()) {
      const seen = Atomics.load(this.replies, 0);
      let got = false;
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
        got = true;
        onReply(m.message as WriterReply);
        if (done()) return;
      }
      if (got) continue;
      // A thread that died answers nothing more; its 'exit' event cannot arrive while this one blocks.
      if (this.worker.threadId === -1) throw new Error("the task store's writer thread is gone");
      Atomics.wait(this.replies, 0, seen, THREAD_CHECK_MS);
    }
  }

  stop(): void {
    this.port.close();
    void this.worker.terminate();
  }
}
