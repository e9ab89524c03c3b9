/**
 * The durable ceiling's store: the product's own database file (stores/open-database.ts: its schema from
 * stores/migrations.ts, WAL, `synchronous = NORMAL`, `wal_autocheckpoint = 10000`), PASSIVE checkpoints on
 * the product's worker connection (stores/wal-checkpointer.ts), and plain prepared statements.
 *
 * Every write of one event-loop turn goes into one `BEGIN IMMEDIATE … COMMIT`, run in `setImmediate`:
 * the inserts of new tasks (`ON CONFLICT DO NOTHING` on the idempotency key: a replay is found by the
 * insert's own constraint, and only then is the stored row read) and the final snapshots with their events.
 * Callers hear of a write only after its commit, as the product's `afterCommit` rule says.
 */
import type Database from 'better-sqlite3';
import { openDatabase } from '../../../main/stores/open-database.js';
import { WalCheckpointer } from '../../../main/stores/wal-checkpointer.js';

export interface NewRow {
  id: string;
  contextId: string;
  agent: string;
  createdAt: string;
  keyScope: string;
  messageId: string;
  payloadHash: string;
  taskJson: string;
}

export interface FinalRow {
  id: string;
  contextId: string;
  agent: string;
  state: string;
  updatedAt: string;
  lastSeq: number;
  taskJson: string;
  /** [seq, event JSON] in order. */
  events: [number, string][];
}

/** What became of an insert: stored, or the row that already held its key. */
export type Inserted = { created: true } | { created: false; taskJson: string; payloadHash: string | null };

export class TurnStore {
  private readonly db: Database.Database;
  private readonly checkpointer: WalCheckpointer;
  private readonly sql: ReturnType<typeof statements>;
  private inserts: { row: NewRow; done: (result: Inserted) => void }[] = [];
  private finals: { row: FinalRow; done: () => void }[] = [];
  private scheduled = false;

  constructor(file: string) {
    this.db = openDatabase(file);
    this.sql = statements(this.db);
    this.checkpointer = new WalCheckpointer(file);
  }

  /** Held for this turn's transaction; `done` runs after its COMMIT. */
  insert(row: NewRow, done: (result: Inserted) => void): void {
    this.inserts.push({ row, done });
    this.schedule();
  }

  finish(row: FinalRow, done: () => void): void {
    this.finals.push({ row, done });
    this.schedule();
  }

  close(): void {
    this.commitTurn();
    this.checkpointer.close();
    this.db.close();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.commitTurn());
  }

  /** One transaction for the turn; the callbacks run once it is committed. */
  private commitTurn(): void {
    this.scheduled = false;
    const inserts = this.inserts;
    const finals = this.finals;
    this.inserts = [];
    this.finals = [];
    if (inserts.length === 0 && finals.length === 0) return;
    const results: Inserted[] = [];
    this.sql.begin.run();
    try {
      for (const { row } of inserts) {
        const changes = this.sql.insertTask.run(
          row.id,
          row.contextId,
          row.agent,
          row.createdAt,
          row.createdAt,
          row.keyScope,
          row.messageId,
          row.payloadHash,
          row.taskJson,
        ).changes;
        if (changes === 1) results.push({ created: true });
        else {
          const known = this.sql.byKey.get(row.keyScope, row.messageId) as { task_json: string; payload_hash: string };
          results.push({ created: false, taskJson: known.task_json, payloadHash: known.payload_hash });
        }
      }
      for (const { row } of finals) {
        this.sql.updateTask.run(row.state, row.updatedAt, row.lastSeq, row.taskJson, row.id);
        for (const [seq, json] of row.events) this.sql.insertEvent.run(row.id, seq, json);
      }
      this.sql.commit.run();
    } catch (err) {
      if (this.db.inTransaction) this.sql.rollback.run();
      throw err; // the ceiling has no lost-group path: a failed commit ends the benchmark run
    }
    this.checkpointer.committed();
    inserts.forEach((insert, i) => insert.done(results[i]!));
    for (const final of finals) final.done();
  }
}

function statements(db: Database.Database) {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    insertTask: db.prepare(
      `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq,
                          key_scope, message_id, payload_hash, task_json)
       VALUES (?, ?, ?, 'submitted', ?, ?, 0, ?, ?, ?, ?)
       ON CONFLICT (key_scope, message_id) DO NOTHING`,
    ),
    byKey: db.prepare('SELECT task_json, payload_hash FROM tasks WHERE key_scope = ? AND message_id = ?'),
    updateTask: db.prepare('UPDATE tasks SET state = ?, updated_at = ?, last_seq = ?, task_json = ? WHERE id = ?'),
    insertEvent: db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)'),
  };
}
