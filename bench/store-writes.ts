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
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
/** The schema as first released (step 1), its four indexes on the last update descending. */
const FIRST_SCHEMA = MIGRATIONS[0]!;
/** Step 2: the four indexes ascending. */
const ASCENDING_SCHEMA = FIRST_SCHEMA.replaceAll('updated_at DESC, id DESC)', 'updated_at, id)');
/** What the migrations make of it today, written flat so that variants can edit it (step 3: the creating agent). */
const PRODUCT_SCHEMA = `${ASCENDING_SCHEMA}\n${MIGRATIONS[2]!}`;
/** `--variants=a,b`: only the variants whose names contain one of these (the product's always runs). */
const ONLY = process.argv
  .find((a) => a.startsWith('--variants='))
  ?.slice('--variants='.length)
  .split(',');

interface Variant {
  name: string;
  schema: string;
  /** Idempotency keys as clients make them (random UUIDs), or in time order. */
  keys: 'random' | 'ordered';
  /** What the insert's ON CONFLICT names: the (scope, messageId) pair, a 64-bit hash of it, or nothing. */
  conflict: 'pair' | 'hash' | 'none';
  /** The tasks are sent by an agent (a `created_by_agent`, so a tasks_by_creator entry); else by the person. */
  byAgent?: boolean;
}

const HASHED_KEY = (schema: string) =>
  schema.replace(/,\s*UNIQUE \(key_scope, message_id\)/, ',\n    key_hash     INTEGER UNIQUE');
const UNFINISHED = `'submitted', 'working', 'input-required', 'auth-required'`;

const reKeyed = (schema: string, from: string, to: string) => schema.replaceAll(from, to);
const VARIANTS: Variant[] = [
  { name: 'product schema', schema: PRODUCT_SCHEMA, keys: 'random', conflict: 'pair' },
  { name: 'the four updated_at indexes descending (step 1)', schema: FIRST_SCHEMA, keys: 'random', conflict: 'pair' },
  {
    name: 'no created_by_agent, no tasks_by_creator (step 2)',
    schema: ASCENDING_SCHEMA,
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: "an agent's sends (tasks_by_creator entries)",
    schema: PRODUCT_SCHEMA,
    keys: 'random',
    conflict: 'pair',
    byAgent: true,
  },
  {
    name: 'no UNIQUE (key_scope, message_id)',
    schema: PRODUCT_SCHEMA.replace(/,\s*UNIQUE \(key_scope, message_id\)/, ''),
    keys: 'random',
    conflict: 'none',
  },
  { name: 'UNIQUE key, time-ordered messageIds', schema: PRODUCT_SCHEMA, keys: 'ordered', conflict: 'pair' },
  { name: 'UNIQUE 64-bit key hash (INTEGER)', schema: HASHED_KEY(PRODUCT_SCHEMA), keys: 'random', conflict: 'hash' },
  {
    name: 'key hash in a WITHOUT ROWID side table',
    schema: `${PRODUCT_SCHEMA.replace(/,\s*UNIQUE \(key_scope, message_id\)/, '')}
      CREATE TABLE task_keys (key_hash INTEGER PRIMARY KEY, task_id TEXT NOT NULL) WITHOUT ROWID;`,
    keys: 'random',
    conflict: 'none',
  },
  {
    name: 'the four indexes on created_at, not updated_at',
    schema: reKeyed(PRODUCT_SCHEMA, 'updated_at, id)', 'created_at, id)'),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'tasks_by_context on context_id alone',
    schema: PRODUCT_SCHEMA.replace(
      'tasks_by_context ON tasks (context_id, updated_at, id)',
      'tasks_by_context ON tasks (context_id)',
    ),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'no tasks_by_agent',
    schema: PRODUCT_SCHEMA.replace(/CREATE INDEX tasks_by_agent[^;]*;/, ''),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'tasks_by_state → partial index of unfinished',
    schema: PRODUCT_SCHEMA.replace(
      /CREATE INDEX tasks_by_state[^;]*;/,
      `CREATE INDEX tasks_unfinished ON tasks (updated_at, id) WHERE state IN (${UNFINISHED});`,
    ),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'tasks WITHOUT ROWID (no separate id index)',
    schema: PRODUCT_SCHEMA.replace(/\n {2}\);/, '\n  ) WITHOUT ROWID;'),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'events as a rowid table, (task_id, seq) its index',
    schema: PRODUCT_SCHEMA.replace(
      /PRIMARY KEY \(task_id, seq\)\n {2}\) WITHOUT ROWID;/,
      'PRIMARY KEY (task_id, seq)\n  );',
    ),
    keys: 'random',
    conflict: 'pair',
  },
  {
    name: 'key hash + unfinished partial index',
    schema: HASHED_KEY(PRODUCT_SCHEMA).replace(
      /CREATE INDEX tasks_by_state[^;]*;/,
      `CREATE INDEX tasks_unfinished ON tasks (updated_at, id) WHERE state IN (${UNFINISHED});`,
    ),
    keys: 'random',
    conflict: 'hash',
  },
];

/**
 * The CPU change against the product's schema as the median of each round's own ratio: the variants of
 * one round run back to back, so a busy moment of the machine moves both sides of a ratio.
 */
const pairedRatio = (us: number[], base: number[]) => median(us.map((u, i) => u / base[i]!));
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(0)}%`;

const WAL_HEADER = 32;
const FRAME = 4096 + 24;

/** `--by-btree`: the WAL frames of each run counted by the b-tree (table or index) the page belongs to. */
const BY_BTREE = process.argv.includes('--by-btree');

function framesByBtree(db: Database.Database, file: string): Map<string, number> {
  const owner = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[])
    owner.set(row.pageno, row.name);
  const wal = readFileSync(`${file}-wal`);
  const counts = new Map<string, number>();
  for (let at = WAL_HEADER; at + FRAME <= wal.length; at += FRAME) {
    const name = owner.get(wal.readUInt32BE(at)) ?? 'freelist';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

function open(file: string, schema: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(schema);
  return db;
}

function statements(db: Database.Database, v: Variant) {
  const sideTable = v.schema.includes('CREATE TABLE task_keys');
  return {
    sideKey: sideTable
      ? db.prepare('INSERT INTO task_keys (key_hash, task_id) VALUES (?, ?) ON CONFLICT DO NOTHING')
      : undefined,
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    insert: db.prepare(
      `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq, key_scope, message_id,
                          payload_hash, task_json${v.conflict === 'hash' ? ', key_hash' : ''}${v.byAgent ? ', created_by_agent' : ''})
       VALUES (?, ?, 'echo', 'submitted', ?, ?, 0, 'echo', ?, 'h', ?${v.conflict === 'hash' ? ', ?' : ''}${v.byAgent ? ", 'boss'" : ''})
       ${{ pair: 'ON CONFLICT (key_scope, message_id) DO NOTHING', hash: 'ON CONFLICT (key_hash) DO NOTHING', none: '' }[v.conflict]}`,
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

/** The first 8 bytes of SHA-256 of the key, as a signed 64-bit integer. */
const keyHash = (messageId: string): bigint =>
  createHash('sha256').update(`echo\u0000${messageId}`).digest().readBigInt64BE(0);

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
    for (const { id, ctx } of ids) {
      const key = messageId(v.keys);
      if (v.conflict === 'hash') sql.insert.run(id, ctx, created, created, key, body(id, 'submitted'), keyHash(key));
      else sql.insert.run(id, ctx, created, created, key, body(id, 'submitted'));
      sql.sideKey?.run(keyHash(key), id);
    }
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

/** The flat PRODUCT_SCHEMA must be what the migrations make, or the rows below measure another schema. */
function schemaOf(sql: string): string {
  const db = new Database(':memory:');
  db.exec(sql);
  const rows = db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all() as { sql: string | null }[];
  db.close();
  return JSON.stringify(rows.map((row) => ({ ...row, sql: row.sql?.replace(/\s+/g, ' ') })));
}
if (schemaOf(PRODUCT_SCHEMA) !== schemaOf(MIGRATIONS.join('\n'))) {
  throw new Error('bench/store-writes.ts: PRODUCT_SCHEMA no longer matches main/stores/migrations.ts; update it.');
}

const chosen = VARIANTS.filter((v, i) => i === 0 || !ONLY || ONLY.some((part) => v.name.includes(part)));
const dir = mkdtempSync(path.join(os.tmpdir(), 'contactor-store-writes-'));
try {
  const dbs = chosen.map((v, i) => {
    const file = path.join(dir, `v${i}.db`);
    const db = open(file, v.schema);
    const sql = statements(db, v);
    // The tasks already there: index pages as deep as a used database's.
    db.pragma('wal_autocheckpoint = 10000');
    sendGroups(db, sql, v, 100, Math.ceil(PREFILL / 100));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('wal_autocheckpoint = 0');
    return { v, db, sql, file };
  });
  const results = new Map<string, { us: number[]; frames: number[] }>();
  const btrees = new Map<string, Map<string, number>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of [8, 32]) {
      for (const { v, db, sql, file } of dbs) {
        db.pragma('wal_checkpoint(TRUNCATE)');
        const walBefore = statSync(`${file}-wal`).size;
        const cpu = process.cpuUsage();
        sendGroups(db, sql, v, size, GROUPS);
        const used = process.cpuUsage(cpu);
        const walAfter = statSync(`${file}-wal`).size;
        if (BY_BTREE && round === 0) btrees.set(`${size}\u0000${v.name}`, framesByBtree(db, file));
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
      `\n${size} tasks per group: variant | CPU µs per task (median of rounds) | WAL frames per task | vs product (CPU: median of per-round ratios)`,
    );
    for (const v of chosen) {
      const r = results.get(`${size}\u0000${v.name}`)!;
      const us = median(r.us);
      const frames = median(r.frames);
      const d = (x: number, b: number) => `${x >= b ? '+' : ''}${(((x - b) / b) * 100).toFixed(0)}%`;
      console.log(
        `  ${v.name.padEnd(50)} ${us.toFixed(1).padStart(7)} µs (${r.us.map((u) => u.toFixed(0)).join('/')})  ${frames.toFixed(2).padStart(5)} frames  ` +
          `${v === VARIANTS[0] ? '' : `${pct(pairedRatio(r.us, base.us))} CPU, ${d(frames, median(base.frames))} frames`}`,
      );
    }
  }
  if (BY_BTREE) {
    for (const size of [8, 32]) {
      console.log(`\n${size} tasks per group, first round: WAL frames per task by b-tree`);
      for (const v of chosen) {
        const counts = [...btrees.get(`${size}\u0000${v.name}`)!].sort((a, b) => b[1] - a[1]);
        console.log(
          `  ${v.name}: ${counts.map(([name, n]) => `${name} ${(n / (size * GROUPS)).toFixed(2)}`).join(', ')}`,
        );
      }
    }
  }
  for (const { db } of dbs) db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
