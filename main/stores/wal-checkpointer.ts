/**
 * Checkpoints the WAL on a worker thread. Copying committed pages into the database file and fsyncing it
 * stalled the event loop for ~40 ms every ~40 MB of WAL (about every 2,000 tasks under load); a second
 * connection on a worker does it instead, while the writer goes on (a PASSIVE checkpoint never blocks it).
 *
 * The worker starts once enough has been committed, and exits after a quiet spell, so an idle bridge
 * has no extra thread. It is an optimisation, never a requirement: the writing connection keeps its
 * own (rarer) automatic checkpoint, and a worker that cannot start or fails is simply not used again.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Commits between two checkpoint requests: up to a few MB of WAL under load, a few tasks when quiet. */
const COMMITS_PER_CHECKPOINT = 64;
/** The worker exits after this long without a request. */
const WORKER_IDLE_MS = 10_000;
/** How long `close` waits for the worker to close its connection. */
const CLOSE_WAIT_MS = 5_000;

// Plain CommonJS run by `new Worker(..., { eval: true })`: no file to find next to a bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const closed = new Int32Array(workerData.closed);
let idle = setTimeout(quit, workerData.idleMs);
function quit() {
  db.close();
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
  parentPort.close();
}
parentPort.on('message', (message) => {
  clearTimeout(idle);
  if (message === 'close') return quit();
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ checkpointed: result.checkpointed });
  } catch (err) {
    parentPort.postMessage({ failed: String(err && err.message) });
  }
  idle = setTimeout(quit, workerData.idleMs);
});
`;

export interface WalCheckpointerOptions {
  /** Commits between requests (tests use fewer). */
  commitsPerCheckpoint?: number;
  idleMs?: number;
}

export class WalCheckpointer {
  private worker: Worker | undefined;
  private closedFlag: Int32Array | undefined;
  private commits = 0;
  private asked = false;
  private disabled = false;
  /** Checkpoints the worker finished (for tests and diagnostics). */
  done = 0;

  constructor(
    private readonly file: string,
    private readonly opts: WalCheckpointerOptions = {},
  ) {}

  /** A worker thread is up (started by enough commits, gone after a quiet spell). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** After each commit of the writing connection. */
  committed(): void {
    if (this.disabled || this.asked) return;
    this.commits += 1;
    if (this.commits < (this.opts.commitsPerCheckpoint ?? COMMITS_PER_CHECKPOINT)) return;
    const worker = this.worker ?? this.start();
    if (!worker) return;
    this.commits = 0;
    this.asked = true;
    worker.postMessage('checkpoint');
  }

  /** Before the writing connection closes: the worker closes first, so the writer's close is the last. */
  close(): void {
    this.disabled = true;
    const worker = this.worker;
    if (!worker || !this.closedFlag) return;
    this.worker = undefined;
    worker.postMessage('close');
    try {
      Atomics.wait(this.closedFlag, 0, 0, CLOSE_WAIT_MS);
    } catch {
      // A host that forbids blocking this thread: the WAL may stay, and the next start checks the file.
    }
    void worker.terminate();
  }

  private start(): Worker | undefined {
    try {
      const closed = new SharedArrayBuffer(4);
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          file: this.file,
          driver: createRequire(import.meta.url).resolve('better-sqlite3'),
          closed,
          idleMs: this.opts.idleMs ?? WORKER_IDLE_MS,
        },
      });
      worker.unref();
      worker.on('message', (message: { checkpointed?: number; failed?: string }) => {
        this.asked = false;
        if (message.failed !== undefined) this.giveUp(worker);
        else this.done += 1;
      });
      worker.on('error', () => this.giveUp(worker));
      worker.on('exit', () => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        this.asked = false;
      });
      this.worker = worker;
      this.closedFlag = new Int32Array(closed);
      return worker;
    } catch {
      this.disabled = true;
      return undefined;
    }
  }

  /** The worker failed: the writing connection's own automatic checkpoint carries on alone. */
  private giveUp(worker: Worker): void {
    this.disabled = true;
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }
}
