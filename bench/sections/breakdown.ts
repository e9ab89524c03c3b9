/**
 * Where a blocking send's server CPU goes, measured rather than read off a sampling profile: the
 * product's echo server beside variants with a part taken out (bench/servers/contactor-echo.ts
 * `BENCH_VARIANT`), the durable ceiling, the reference and the floor, all taking turns in one throughput harness. The
 * difference between two rows is the cost of the part taken out. Informational: no goal reads it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';
import { startChild, type RunningChild } from '../lib/children.js';
import { perS, type Row } from '../lib/report.js';
import { echoServer, measureThroughput, type ServerUnderTest, type ThroughputRow } from './throughput.js';

const VARIANTS = [
  { variant: 'product', what: 'the product (SQLite store, audit log)' },
  { variant: 'no-audit', what: 'without the audit log' },
  { variant: 'no-sql', what: 'SQLite store, its commit SQL skipped (not durable)' },
  { variant: 'memory', what: 'in-memory store instead of SQLite' },
  { variant: 'memory-no-audit', what: 'in-memory store, no audit log' },
] as const;

type Ready = { ready: boolean; port: number; token?: string };
type Variant = (typeof VARIANTS)[number];

/**
 * `BENCH_BREAKDOWN_VARIANTS=no-sql` measures only the product and those variants (the ceiling, reference and
 * floor always run), and `BENCH_BREAKDOWN_CONCURRENCIES=1,8,32` other concurrencies than the section's:
 * a two-way A/B then takes turns more often in the same time.
 */
function chosen(): { variants: readonly Variant[]; concurrencies: number[] | undefined } {
  const names = process.env.BENCH_BREAKDOWN_VARIANTS?.split(',');
  const unknown = names?.filter((n) => !VARIANTS.some((v) => v.variant === n));
  if (unknown && unknown.length > 0) throw new Error(`BENCH_BREAKDOWN_VARIANTS: unknown ${unknown.join(', ')}`);
  const concurrencies = process.env.BENCH_BREAKDOWN_CONCURRENCIES?.split(',').map(Number);
  if (concurrencies?.some((c) => !Number.isInteger(c) || c < 1))
    throw new Error('BENCH_BREAKDOWN_CONCURRENCIES takes whole numbers of at least 1, e.g. 1,8,32');
  return {
    variants: names ? VARIANTS.filter((v) => v.variant === 'product' || names.includes(v.variant)) : VARIANTS,
    concurrencies,
  };
}

export async function measureBreakdown(opts: {
  buildDir: string;
  root: string;
  counts: { count: number; warmup: number; rounds: number };
  concurrencies: number[];
}): Promise<{ rows: Row[]; results: ThroughputRow[] }> {
  const children: RunningChild<Ready>[] = [];
  const servers: ServerUnderTest[] = [];
  const { variants, concurrencies = opts.concurrencies } = chosen();
  try {
    for (const { variant } of variants) {
      const dataDir = path.join(opts.root, `breakdown-${variant}`);
      mkdirSync(dataDir);
      const child = await startChild<Ready>(path.join(opts.buildDir, 'contactor-echo.mjs'), [dataDir], {
        nodeFlags: HEADLESS_NODE_FLAGS,
        env: { BENCH_VARIANT: variant },
      });
      children.push(child);
      servers.push(echoServer(variant, child));
    }
    const ceilingDir = path.join(opts.root, 'breakdown-ceiling');
    mkdirSync(ceilingDir);
    const ceiling = await startChild<Ready>(path.join(opts.buildDir, 'durable-ceiling.mjs'), [ceilingDir], {
      nodeFlags: HEADLESS_NODE_FLAGS,
    });
    children.push(ceiling);
    servers.push(echoServer('ceiling', ceiling));
    for (const name of ['reference', 'floor'] as const) {
      const file = name === 'reference' ? 'reference-echo.mjs' : 'bare-floor.mjs';
      const child = await startChild<Ready>(path.join(opts.buildDir, file));
      children.push(child);
      servers.push({ name, pid: child.pid, port: child.info.port, path: '/', headers: {} });
    }
    const results = await measureThroughput({ servers, concurrencies, ...opts.counts });
    return { rows: breakdownRows(results, concurrencies, variants), results };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    for (const name of [...VARIANTS.map((v) => v.variant), 'ceiling'])
      rmSync(path.join(opts.root, `breakdown-${name}`), { recursive: true, force: true });
  }
}

function breakdownRows(results: ThroughputRow[], concurrencies: number[], variants: readonly Variant[]): Row[] {
  return concurrencies.flatMap((c) => {
    const at = (name: string) => results.find((r) => r.server === name && r.concurrency === c)!;
    const failures = results.filter((r) => r.concurrency === c).reduce((n, r) => n + r.failures, 0);
    if (failures > 0) throw new Error(`breakdown at concurrency ${c}: ${failures} requests failed`);
    const product = at('product');
    const cpu = (r: ThroughputRow) => (r.cpuUsPerRequest === undefined ? '?' : `${Math.round(r.cpuUsPerRequest)} µs`);
    const ratio = (r: ThroughputRow) => `${(r.tasksPerSecond / at('reference').tasksPerSecond).toFixed(2)}×`;
    const saved = (r: ThroughputRow): string => {
      if (r.cpuUsPerRequest === undefined || product.cpuUsPerRequest === undefined) return '?';
      const d = Math.round(product.cpuUsPerRequest - r.cpuUsPerRequest);
      return d >= 0 ? `${d} µs/req less than the product` : `${-d} µs/req more than the product`;
    };
    const row = (r: ThroughputRow, measure: string): Row => ({
      section: 'breakdown',
      measure: `c=${c}: ${measure}`,
      contactor: `${perS(r.tasksPerSecond)}, p99 ${r.p99Ms.toFixed(1)} ms, ${cpu(r)} CPU/req`,
      baseline: `${cpu(at('reference'))} reference, ${cpu(at('floor'))} floor`,
      comparison: r === product ? `${ratio(r)} reference` : `${saved(r)}; ${ratio(r)} reference`,
    });
    return [
      ...variants.map(({ variant, what }) => row(at(variant), what)),
      row(at('ceiling'), 'the durable ceiling (bench/servers/durable-ceiling.ts)'),
    ];
  });
}
