/**
 * The write set of one blocking send, measured (docs/benchmark.md#the-write-set-per-task): `npx tsx
 * bench/store-writes.ts [--tasks=20000] [--groups=200] [--rounds=5]`. A blocking send writes its task
 * twice in the product: the row inserted `submitted` (one group), then the final snapshot and three events
 * (the next group). This replays exactly those statements, groups of 8 and 32 tasks as at c=8 and c=32,
 * on a database already holding `--tasks` tasks, for the product's schema and for variants of it with one
 * part changed, taking turns round by round. Per task: CPU time of the writing thread and WAL frames
 * appended (each frame is one 4 KiB page a commit dirtied; checkpoints are off while measuring, as the
 * product runs them on a worker thread). The difference between two rows is what the part costs.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS } from '../main/stores/migrations.js';
import { timeOrderedId } from '../main/runtime/task-ids.js';
import { median } from './lib/stats.js';

const flag = (name: string, fallback: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const PREFILL = flag('tasks', 20_000);
const GROUPS = flag('groups', 200);
const ROUNDS = flag('rounds', 5);
const PRODUCT_SCHEMA = MIGRATIONS.join('\n');

interface Variant {
  name: string;
  schema: string;
  /** Idempotency keys as clients make them (random UUIDs), or in time order. */
  keys: 'random' | 'ordered';
}

const reKeyed = (schema: string, from: string, to: string) => schema.replaceAll(from, to);
const VARIANTS: Variant[] = [
  { name: 'product schema', schema: PRODUCT_SCHEMA, keys: 'random' },
  {
    name: 'no UNIQUE (key_scope, message_id)',
    schema: PRODUCT_SCHEMA.replace(/,\s*UNIQUE \(key_scope, message_id\)/, ''),
    keys: 'random',
  },
  { name: 'UNIQUE key, time-ordered messageIds', schema: PRODUCT_SCHEMA, keys: 'ordered' },
  {
    name: 'the four indexes on created_at, not updated_at',
    schema: reKeyed(PRODUCT_SCHEMA, 'updated_at DESC, id DESC)', 'created_at DESC, id DESC)'),
    keys: 'random',
  },
  {
    name: 'tasks_by_context on context_id alone',
    schema: PRODUCT_SCHEMA.replace(
      'tasks_by_context ON tasks (context_id, updated_at DESC, id DESC)',
      'tasks_by_context ON tasks (context_id)',
    ),
    keys: 'random',
  },
  {
    name: 'no tasks_by_agent',
    schema: PRODUCT_SCHEMA.replace(/CREATE INDEX tasks_by_agent[^;]*;/, ''),
    keys: 'random',
  },
];

const WAL_HEADER = 32;
const FRAME = 4096 + 24;

function open(file: string, schema: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(schema);
  return db;
}

function statements(db: Database.Database, withKey: boolean) {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    insert: db.prepare(
      `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq, key_scope, message_id,
                          payload_hash, task_json)
       VALUES (?, ?, 'echo', 'submitted', ?, ?, 0, 'echo', ?, 'h', ?)${withKey ? ' ON CONFLICT (key_scope, message_id) DO NOTHING' : ''}`,
    ),
    update: db.prepare('UPDATE tasks SET state = ?, updated_at = ?, last_seq = ?, task_json = ? WHERE id = ?'),
    event: db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)'),
  };
}

/** A task JSON of the benchmark's size (~750 bytes, like a stored echo task). */
const body = (id: string, state: string) =>
  JSON.stringify({
    kind: 'task',
    id,
    status: { state },
    history: [{ text: 'hello from the benchmark' }],
    pad: 'x'.repeat(520),
  });

function messageId(keys: Variant['keys']): string {
  return keys === 'random' ? crypto.randomUUID() : timeOrderedId();
}

/** One blocking send per task, `size` tasks per group: the creation group, then the final group. */
function sendGroups(
  db: Database.Database,
  sql: ReturnType<typeof statements>,
  v: Variant,
  size: number,
  groups: number,
) {
  for (let g = 0; g < groups; g++) {
    const ids = Array.from({ length: size }, () => ({ id: timeOrderedId(), ctx: timeOrderedId() }));
    const created = new Date().toISOString();
    sql.begin.run();
    for (const { id, ctx } of ids) sql.insert.run(id, ctx, created, created, messageId(v.keys), body(id, 'submitted'));
    sql.commit.run();
    const done = new Date().toISOString();
    sql.begin.run();
    for (const { id } of ids) {
      sql.update.run('completed', done, 3, body(id, 'completed'), id);
      for (let seq = 1; seq <= 3; seq++)
        sql.event.run(id, seq, `{"kind":"status-update","seq":${seq},"pad":"${'e'.repeat(180)}"}`);
    }
    sql.commit.run();
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'contactor-store-writes-'));
try {
  const dbs = VARIANTS.map((v, i) => {
    const file = path.join(dir, `v${i}.db`);
    const db = open(file, v.schema);
    const sql = statements(db, !v.name.startsWith('no UNIQUE'));
    // The tasks already there: index pages as deep as a used database's.
    db.pragma('wal_autocheckpoint = 10000');
    sendGroups(db, sql, v, 100, Math.ceil(PREFILL / 100));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('wal_autocheckpoint = 0');
    return { v, db, sql, file };
  });
  const results = new Map<string, { us: number[]; frames: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of [8, 32]) {
      for (const { v, db, sql, file } of dbs) {
        db.pragma('wal_checkpoint(TRUNCATE)');
        const walBefore = statSync(`${file}-wal`).size;
        const cpu = process.cpuUsage();
        sendGroups(db, sql, v, size, GROUPS);
        const used = process.cpuUsage(cpu);
        const walAfter = statSync(`${file}-wal`).size;
        const tasks = size * GROUPS;
        const key = `${size}\u0000${v.name}`;
        const r = results.get(key) ?? { us: [], frames: [] };
        r.us.push((used.user + used.system) / tasks);
        r.frames.push((walAfter - Math.max(walBefore, WAL_HEADER)) / FRAME / tasks);
        results.set(key, r);
      }
    }
  }
  console.log(
    `store write set per blocking send (2 commits), ${PREFILL} tasks stored before, ${GROUPS} groups × ${ROUNDS} rounds; ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  for (const size of [8, 32]) {
    const base = results.get(`${size}\u0000${VARIANTS[0]!.name}`)!;
    console.log(
      `\n${size} tasks per group: variant | CPU µs per task (median of rounds) | WAL frames per task | vs product`,
    );
    for (const v of VARIANTS) {
      const r = results.get(`${size}\u0000${v.name}`)!;
      const us = median(r.us);
      const frames = median(r.frames);
      const d = (x: number, b: number) => `${x >= b ? '+' : ''}${(((x - b) / b) * 100).toFixed(0)}%`;
      console.log(
        `  ${v.name.padEnd(48)} ${us.toFixed(1).padStart(7)} µs (${r.us.map((u) => u.toFixed(0)).join('/')})  ${frames.toFixed(2).padStart(5)} frames  ` +
          `${v === VARIANTS[0] ? '' : `${d(us, median(base.us))} CPU, ${d(frames, median(base.frames))} frames`}`,
      );
    }
  }
  for (const { db } of dbs) db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
