/**
 * Group commit for one better-sqlite3 connection: the writes of one event-loop turn share one
 * transaction. A WAL commit appends every page the transaction dirtied (task row, its indexes, the
 * events), so a task's four state changes cost one commit with this, not four — and the tasks of every
 * request served in the same turn share it too.
 *
 * The group's transaction opens (`BEGIN IMMEDIATE`) with its first write, so what the store must know at
 * once — whether an idempotency key or a task id is taken, a task's last seq — is asked inside it, by the
 * insert's own constraint or a read that needs no read transaction of its own. The store holds the rest of
 * the group's writes itself (pending-writes.ts) and hands them over in `writeAll`, run when the group
 * commits: in `setImmediate`, after the I/O callbacks of the current loop iteration, or earlier on
 * `flush`. Durability is what moves: a write is durable when its group commits, and `afterCommit`
 * callbacks — the only way anyone may hear of it — run only then.
 */
import type Database from 'better-sqlite3';

type Callback = (lost?: Error) => void;

export class GroupCommit {
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private open = false;
  /** A write of the open group threw: SQLite may have rolled its transaction back (see `write`). */
  private suspect = false;
  private callbacks: Callback[] = [];
  private timer: NodeJS.Immediate | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly writeAll: () => void,
    /** Told after each group that committed (the WAL grew); a throw there never fails the group. */
    private readonly onCommitted: () => void,
    /** Told when a group is lost: the writes it held are dropped, never written outside a transaction. */
    private readonly onLost: () => void,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  /**
   * Runs one call's writes in the open group, opening one when none is open: its transaction begins now
   * and its commit is scheduled. Throws when the transaction cannot begin (another process holds the
   * write lock past busy_timeout): then nothing is open and nothing was written.
   *
   * Only a write that threw can have made SQLite roll the group's transaction back (disk full, an I/O
   * error), so only then does the next write ask the connection whether the group is still open; the
   * other writes of a group take it on trust.
   */
  write<T>(write: () => T): T {
    if (this.suspect && this.db.inTransaction) this.suspect = false;
    if (!this.open || this.suspect) this.start();
    try {
      return write();
    } catch (err) {
      this.suspect = true;
      throw err;
    }
  }

  /** Callbacks must not throw: a throw is re-raised after the others ran, from `flush` or the timer. */
  afterCommit(callback: Callback): void {
    if (this.open) this.callbacks.push(callback);
    else callback();
  }

  /** Commits the open group now; throws when it was lost. */
  flush(): void {
    const lost = this.end();
    if (lost) throw lost;
  }

  private start(): void {
    // SQLite rolled the open group's transaction back (a statement in it failed on disk full or I/O):
    // that group is lost, and reported now, before a new one begins.
    if (this.open) this.end();
    this.begin.run();
    this.open = true;
    this.suspect = false;
    this.timer = setImmediate(() => this.end());
  }

  /** Commits (or, failing that, rolls back) the open group and runs its callbacks. */
  private end(): Error | undefined {
    if (!this.open) return undefined;
    this.open = false;
    this.suspect = false;
    clearImmediate(this.timer);
    const callbacks = this.callbacks;
    this.callbacks = [];
    let lost: Error | undefined;
    try {
      if (!this.db.inTransaction) throw new Error('the group commit was rolled back by SQLite before its COMMIT');
      this.writeAll();
      this.commit.run();
    } catch (err) {
      lost = err instanceof Error ? err : new Error(String(err));
      // SQLite may already have rolled back (SQLITE_FULL, IOERR); otherwise undo the group here.
      if (this.db.inTransaction) this.rollback.run();
      this.onLost();
    }
    if (!lost) {
      try {
        this.onCommitted();
      } catch {
        // Only housekeeping (the checkpoint worker) listens: the group itself is committed.
      }
    }
    // Every callback runs even if one throws (its waiters would hang otherwise); the throw comes after.
    let failure: { err: unknown } | undefined;
    for (let i = 0; i < callbacks.length; i += 1) {
      try {
        callbacks[i]!(lost);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
    return lost;
  }
}
