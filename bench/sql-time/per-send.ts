/**
 * `npx tsx bench/sql-time/per-send.ts [--concurrency=8] [--sends=4000] [--warmup=500]` (not part of
 * `npm run bench`): the time a blocking send spends inside SQLite statements, statement by statement, in
 * the product's echo server and in the durable ceiling under the same load (the throughput harness, the two
 * taking turns), timed around each better-sqlite3 call (timing-preload.mjs) rather than inferred from a
 * variant with the SQL taken out: that variant also takes away the WAL checkpoints a worker thread runs
 * (docs/benchmark.md#round-7-where-a-blocking-sends-time-goes).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';
import { BENCH_DIR, bundleServers, startChild, type RunningChild } from '../lib/children.js';
import { throughputFlags } from '../lib/flags.js';
import { echoServer, measureThroughput, type ServerUnderTest } from '../sections/throughput.js';

const { concurrency, sends, warmup } = throughputFlags('bench/sql-time/per-send.ts', {
  concurrency: 8,
  sends: 4000,
  warmup: 500,
});

type Ready = { ready: boolean; port: number; token: string };
type Totals = [string, { calls: number; ns: number }][];
const SERVERS = ['contactor-echo', 'durable-ceiling'] as const;
const buildDir = path.join(BENCH_DIR, 'results', 'build-sql-time');
await bundleServers([...SERVERS], buildDir);
const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-sql-time-'));
const children: RunningChild<Ready>[] = [];
try {
  const servers: ServerUnderTest[] = [];
  for (const name of SERVERS) {
    const dataDir = path.join(root, name);
    mkdirSync(dataDir);
    const child = await startChild<Ready>(path.join(buildDir, `${name}.mjs`), [dataDir], {
      nodeFlags: [...HEADLESS_NODE_FLAGS, '--import', path.join(BENCH_DIR, 'sql-time', 'timing-preload.mjs')],
      env: { BENCH_SQL_TIME_OUT: path.join(root, `${name}.json`) },
    });
    children.push(child);
    servers.push(echoServer(name, child));
  }
  const load = os.loadavg()[0]!.toFixed(1);
  const rows = await measureThroughput({ servers, concurrencies: [concurrency], count: sends, warmup, rounds: 1 });
  console.log(
    `c=${concurrency}, ${sends} sends after ${warmup} of warm-up, load ${load} → ${os.loadavg()[0]!.toFixed(1)}`,
  );
  for (const [i, name] of SERVERS.entries()) {
    const row = rows.find((r) => r.server === name)!;
    const totals = await totalsOf(children[i]!, path.join(root, `${name}.json`));
    // The warm-up's sends are counted too: the preload starts counting when the server does.
    const perSend = (ns: number): string => `${(ns / (sends + warmup) / 1000).toFixed(1)} µs`;
    console.log(
      `\n${name}: ${Math.round(row.tasksPerSecond)}/s, ${Math.round(row.cpuUsPerRequest ?? 0)} µs CPU per send`,
    );
    let all = 0;
    for (const [sql, { calls, ns }] of totals.sort((a, b) => b[1].ns - a[1].ns)) {
      all += ns;
      if (calls >= (sends + warmup) / 100)
        console.log(`  ${perSend(ns).padStart(9)}  ${(calls / (sends + warmup)).toFixed(2)}/send  ${sql.slice(0, 90)}`);
    }
    console.log(`  ${perSend(all).padStart(9)}  in SQLite statements, all told`);
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(root, { recursive: true, force: true });
}

/** Asks the server's preload for its totals (SIGUSR2) and waits for the file it writes. */
async function totalsOf(child: RunningChild<Ready>, file: string): Promise<Totals> {
  process.kill(child.pid, 'SIGUSR2');
  for (let tries = 0; ; tries += 1) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Totals;
    } catch (err) {
      if (tries === 200) throw new Error(`no SQL timings from the server in ${file}`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
