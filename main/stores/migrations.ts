/**
 * The task database schema, versioned with `PRAGMA user_version`: step i brings version i to i + 1.
 * Steps are only ever appended; a released step is never edited.
 */
import type { Database } from 'better-sqlite3';

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    id           TEXT PRIMARY KEY,
    context_id   TEXT NOT NULL,
    agent        TEXT NOT NULL,
    state        TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    -- status.timestamp as toISOString() text: text order is time order.
    updated_at   TEXT NOT NULL,
    last_seq     INTEGER NOT NULL,
    -- Idempotency key (scope = the target agent); NULL when the message had no id. NULLs never collide.
    key_scope    TEXT,
    message_id   TEXT,
    payload_hash TEXT,
    task_json    TEXT NOT NULL,
    UNIQUE (key_scope, message_id)
  );
  CREATE INDEX tasks_by_update  ON tasks (updated_at DESC, id DESC);
  CREATE INDEX tasks_by_context ON tasks (context_id, updated_at DESC, id DESC);
  CREATE INDEX tasks_by_state   ON tasks (state, updated_at DESC, id DESC);
  CREATE INDEX tasks_by_agent   ON tasks (agent, updated_at DESC, id DESC);

  CREATE TABLE events (
    task_id    TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
  ) WITHOUT ROWID;
  `,
  // The four indexes on the last update, ascending. Every reader still gets its order from them: newest
  // first (ListTasks) walks an index backwards as cheaply as forwards. What changes is where a write lands:
  // a new or updated task has the latest updated_at, so a descending key put its entry before the first of
  // its range. SQLite's page balancing keeps the left pages full and the room on the right, so entries
  // arriving at the left end split full pages again and again; at the right end they fill the room first
  // (9-14% fewer WAL frames per task: docs/benchmark.md#the-write-set-per-task).
  `
  DROP INDEX tasks_by_update;
  DROP INDEX tasks_by_context;
  DROP INDEX tasks_by_state;
  DROP INDEX tasks_by_agent;
  CREATE INDEX tasks_by_update  ON tasks (updated_at, id);
  CREATE INDEX tasks_by_context ON tasks (context_id, updated_at, id);
  CREATE INDEX tasks_by_state   ON tasks (state, updated_at, id);
  CREATE INDEX tasks_by_agent   ON tasks (agent, updated_at, id);
  `,
  // The agent that created a task (metadata.createdBy `agent:<name>`; NULL when the person did), so an
  // agent's token lists the questions of its own tasks by index, its latest first, before any page is cut
  // (`pending/list` history: SECURITY.md#who-may-do-what). Partial: the person's tasks, most of them, add
  // no index entry and no index write to a send.
  `
  ALTER TABLE tasks ADD COLUMN created_by_agent TEXT;
  UPDATE tasks SET created_by_agent = substr(json_extract(task_json, '$.metadata.createdBy'), 7)
    WHERE substr(json_extract(task_json, '$.metadata.createdBy'), 1, 6) = 'agent:';
  CREATE INDEX tasks_by_creator ON tasks (created_by_agent, updated_at, id) WHERE created_by_agent IS NOT NULL;
  `,
  // A long reply is stored once, in its artifact-update events: the snapshot refers to them for that text
  // (stores/artifact-refs.ts, docs/architecture.md#the-task-database). NULL in both: the row's task_json is
  // the whole task, as every row written before this step is; no row is rewritten.
  `
  ALTER TABLE tasks ADD COLUMN artifact_refs TEXT;
  ALTER TABLE tasks ADD COLUMN task_bytes INTEGER;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to `SCHEMA_VERSION`, each step in its own transaction together with its version bump. */
export function migrate(db: Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `The task database ${file} has schema version ${version}, newer than this contactor knows (${SCHEMA_VERSION}). ` +
        `Update contactor, or move the file aside to start empty: mv "${file}" "${file}.newer"`,
    );
  }
  for (let step = version; step < SCHEMA_VERSION; step++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[step] as string);
      db.pragma(`user_version = ${step + 1}`);
    })();
  }
}
