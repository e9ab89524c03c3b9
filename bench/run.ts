/**
 * `npm run bench`: contactor against baselines measured in the same run — the @a2a-js/sdk reference
 * server, the durable ceiling (bench/servers/durable-ceiling.ts), the SDK's direct ACP client, a bare node:http floor — judged against the goals in bench/lib/goals.ts, every
 * one a same-run ratio (bench/lib/goals.ts). A goal passes when the median of the runs meets it; the
 * table prints every run's value and their spread. Results go to bench/results/ (JSON + Markdown).
 *
 * Flags: --runs=<n> (default 3), --quick (smaller counts, one run unless --runs says otherwise),
 * --only=<throughput,acp,streaming,scale,cli,soak,breakdown> (one or more sections; the breakdown runs only
 * when named), --soak-tasks=<n> (the soak's tasks, default 200,000). BENCH_CPU_PROF=<dir> profiles every server
 * child; BENCH_SCALE_TASKS=<n> sets the scale section's stored tasks and BENCH_CACHE_DIR=<dir> where their filled
 * database is kept (default bench/results/cache). Ctrl-C while that database fills stops it, removes the partial
 * database and this run's temp folder, and exits 130 (bench/lib/interrupt.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleServers, BENCH_DIR } from './lib/children.js';
import { flag } from './lib/flags.js';
import { judge, verdictCells, type Figures } from './lib/goals.js';
import { BenchInterrupted, INTERRUPTED_EXIT_CODE } from './lib/interrupt.js';
import { DEFAULT_SECTIONS, runOnce, SECTIONS, type OneRun, type RunCounts, type Section } from './lib/one-run.js';
import { DETAIL_HEADERS, detailCells, markdownTable, textTable } from './lib/report.js';

const quick = process.argv.includes('--quick');
const runCount = Number(flag('runs') ?? (quick ? 1 : 3));
const only = flag('only')?.split(',');
const unknown = only?.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown?.length || !Number.isInteger(runCount) || runCount < 1) {
  console.error(`usage: npm run bench -- [--runs=<n>] [--quick] [--only=${SECTIONS.join(',')}] [--soak-tasks=<n>]`);
  process.exit(2);
}
const scaleTasks = Number(process.env.BENCH_SCALE_TASKS || (quick ? 20_000 : 100_000));
if (!Number.isInteger(scaleTasks) || scaleTasks < 1) {
  console.error(
    `BENCH_SCALE_TASKS must be a whole number of tasks, 1 or more; it is "${process.env.BENCH_SCALE_TASKS}"`,
  );
  process.exit(2);
}
const sections = new Set<Section>((only as Section[] | undefined) ?? DEFAULT_SECTIONS);
const scaleDown = (n: number): number => (quick ? Math.max(1, Math.round(n / 5)) : n);
const soakTotal = Number(flag('soak-tasks') ?? (quick ? 20_000 : 200_000));
if (!Number.isInteger(soakTotal) || soakTotal < 10) {
  console.error('--soak-tasks takes a whole number of at least 10');
  process.exit(2);
}

const COUNTS: RunCounts = {
  throughput: { count: scaleDown(2000), warmup: scaleDown(300), rounds: quick ? 1 : 3, concurrencies: [1, 8, 32] },
  acp: { calls: scaleDown(300), warmup: 20 },
  // 1,000 samples: a p99 of 200 was the 2nd-worst chunk, one scheduling hiccup from a MISS.
  stamps: { chunks: scaleDown(1000), intervalMs: 5, chunkChars: 512 },
  // 300 samples (3 s): the p99 is a goal (the batching window), not the single worst chunk.
  smallStamps: { chunks: scaleDown(300), intervalMs: 10, chunkChars: 48 },
  // Three 10 MB replies each way, alternating: one pair per run swung from 19% to 100% of direct.
  bulk: { bytes: 10 * 1024 * 1024, chunkChars: 1024, pairs: quick ? 1 : 3 },
  cli: { runs: 20, warmup: 2, npxRuns: quick ? 2 : 3 },
  scale: { tasks: scaleTasks, getCalls: scaleDown(2000), listCalls: scaleDown(300), listPageSize: 50 },
  // --soak-tasks=<n> for a shorter soak, its first point at a tenth of it or at --soak-early=<n>.
  soak: { total: soakTotal, early: Number(flag('soak-early') ?? Math.round(soakTotal / 10)), concurrency: 8 },
};

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
if (major < 22 || (major === 22 && minor < 14)) {
  console.error(`node ${process.version} is too old (better-sqlite3 13 needs >= 22.14): run it as \`npm run bench\``);
  process.exit(2);
}

function machine(): Record<string, unknown> {
  const cpu = /model name\s*:\s*(.+)/.exec(safeRead('/proc/cpuinfo'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    cpus: os.availableParallelism(),
    cpuModel: cpu.trim(),
    memoryGB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const startedAt = new Date().toISOString();
const buildDir = path.join(BENCH_DIR, 'results', 'build');
const started = performance.now();
const log = (what: string): void => console.error(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${what}`);

log('bundling the server entry points');
await bundleServers(['contactor-echo', 'durable-ceiling', 'reference-echo', 'bare-floor', 'bridge-serve'], buildDir);
const cacheDir = process.env.BENCH_CACHE_DIR || path.join(BENCH_DIR, 'results', 'cache');
const runs: OneRun[] = [];
for (let i = 0; i < runCount; i++) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-bench-'));
  let interrupted = false;
  try {
    // The soak (minutes: 200,000 tasks) runs in the first run only; its goals compare two points of that run.
    const these = i === 0 ? sections : new Set([...sections].filter((s) => s !== 'soak'));
    const runLog = (w: string): void => log(`run ${i + 1}: ${w}`);
    runs.push(await runOnce({ sections: these, counts: COUNTS, buildDir, root, cacheDir, log: runLog }));
  } catch (err) {
    if (!(err instanceof BenchInterrupted)) throw err;
    interrupted = true;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  if (interrupted) {
    log(`interrupted: stopped, and removed the partial database and ${root}`);
    process.exit(INTERRUPTED_EXIT_CODE);
  }
}

const verdicts = judge(runs.map((r) => r.figures));
const goals = verdictCells(verdicts);
const detail = detailCells(runs.at(-1)!.rows);
const totalSeconds = (performance.now() - started) / 1000;
const m = machine();
const results = {
  startedAt,
  quick,
  runs: runCount,
  sections: [...sections],
  machine: m,
  counts: COUNTS,
  totalSeconds,
  goals: verdicts,
  figures: runs.map((r): Figures => r.figures),
  perRun: runs.map((r) => r.results),
  lastRunTable: runs.at(-1)!.rows,
};
const outDir = path.join(BENCH_DIR, 'results');
mkdirSync(outDir, { recursive: true });
const json = `${JSON.stringify(results, null, 2)}\n`;
writeFileSync(path.join(outDir, `bench-${startedAt.replace(/[:.]/g, '-')}.json`), json);
writeFileSync(path.join(outDir, 'latest.json'), json);
const machineLine = `${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGB} GB RAM, node ${m.node}, ${m.platform}; load average at start ${(m.loadAverageAtStart as number[]).join(' ')}`;
const ran = `${runCount} run${runCount === 1 ? '' : 's'}${quick ? ' (--quick)' : ''}`;
writeFileSync(
  path.join(outDir, 'latest.md'),
  `Ran ${startedAt}, ${ran}, in ${totalSeconds.toFixed(0)} s on ${machineLine}.\n\n` +
    `Goals (median of the runs decides; spread = max − min):\n\n${markdownTable(goals.headers, goals.rows)}\n\n` +
    `Detail of the last run:\n\n${markdownTable(DETAIL_HEADERS, detail)}\n`,
);
console.log(
  `\ngoals, ${ran} (median decides; spread = max − min):\n${textTable(goals.headers, goals.rows)}\n\n` +
    `detail of the last run:\n${textTable(DETAIL_HEADERS, detail)}\n\n` +
    `machine: ${machineLine}\ntotal ${totalSeconds.toFixed(1)} s; results in bench/results/latest.json and latest.md`,
);
