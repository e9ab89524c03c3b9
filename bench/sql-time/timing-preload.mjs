/**
 * Preloaded into a server (`--import`; plain JavaScript, so the bundled server needs no loader) by
 * bench/sql-time/per-send.ts: times every better-sqlite3 statement call (`run`, `get`, `all`) on the thread
 * that makes it, by its SQL text, with the statement's own native work inside the timing and nothing else.
 * SIGUSR2 writes the totals to the file `BENCH_SQL_TIME_OUT` names and starts counting again.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const out = process.env.BENCH_SQL_TIME_OUT;
if (!out) throw new Error('BENCH_SQL_TIME_OUT names the file the SQL timings go to');
// The repository's better-sqlite3, the one the bundled servers load (the bundles leave it external).
const Database = createRequire(import.meta.url)('better-sqlite3');
const probe = new Database(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();

/** SQL text (whitespace folded) → calls and nanoseconds. */
const totals = new Map();
for (const method of ['run', 'get', 'all']) {
  const original = statement[method];
  statement[method] = function timed(...args) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const ns = Number(process.hrtime.bigint() - started);
      const sql = this.source.replace(/\s+/g, ' ').trim();
      const total = totals.get(sql) ?? { calls: 0, ns: 0 };
      total.calls += 1;
      total.ns += ns;
      totals.set(sql, total);
    }
  };
}

process.on('SIGUSR2', () => {
  writeFileSync(out, JSON.stringify([...totals]));
  totals.clear();
});
