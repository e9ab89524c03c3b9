/**
 * One full run of the benchmark's sections, each beside its baselines started fresh in this run:
 * the detail rows (informational) and the named figures the goals are computed from (goals.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';
import { CHUNK_IDLE_MS } from '../../main/runtime/artifact-stream.js';
import { measureAcpOverhead } from '../sections/acp-overhead.js';
import { measureBreakdown } from '../sections/breakdown.js';
import { measureScale } from '../sections/scale.js';
import { measureSoak, type SoakPoint } from '../sections/soak.js';
import { measureBulk, measureChunkLatency } from '../sections/streaming.js';
import { echoServer, measureThroughput, type ThroughputRow } from '../sections/throughput.js';
import { openDirectAgent } from './acp-direct.js';
import { startBridgeChild } from './bridge-child.js';
import { BENCH_DIR, REPO_ROOT, cpuMs, startChild, writtenBytes } from './children.js';
import { cliStartup } from './cli-rows.js';
import type { Figures } from './goals.js';
import { mb, ms, perS, type Row } from './report.js';

export const SECTIONS = ['throughput', 'acp', 'streaming', 'scale', 'cli', 'soak', 'breakdown'] as const;
export type Section = (typeof SECTIONS)[number];
/** What a plain `npm run bench` runs: the breakdown (no goal, ~40 s a run) only when asked for. */
export const DEFAULT_SECTIONS: readonly Section[] = SECTIONS.filter((s) => s !== 'breakdown');

export interface RunCounts {
  throughput: { count: number; warmup: number; rounds: number; concurrencies: number[] };
  acp: { calls: number; warmup: number };
  stamps: { chunks: number; intervalMs: number; chunkChars: number };
  smallStamps: { chunks: number; intervalMs: number; chunkChars: number };
  bulk: { bytes: number; chunkChars: number; pairs: number };
  cli: { runs: number; warmup: number; npxRuns: number };
  scale: { tasks: number; getCalls: number; listCalls: number; listPageSize: number };
  soak: { total: number; early: number; concurrency: number };
}

export interface OneRun {
  rows: Row[];
  figures: Figures;
  results: Record<string, unknown>;
}

export async function runOnce(opts: {
  sections: ReadonlySet<Section>;
  counts: RunCounts;
  buildDir: string;
  /** A fresh folder for this run's data dirs and configs; removed by the caller. */
  root: string;
  /** Where the scale section keeps its filled database between runs. */
  cacheDir: string;
  log: (what: string) => void;
}): Promise<OneRun> {
  const { sections, counts, buildDir, root, cacheDir, log } = opts;
  const rows: Row[] = [];
  const figures: Figures = {};
  const results: Record<string, unknown> = {};

  if (sections.has('throughput')) {
    log('throughput: contactor vs the durable ceiling vs reference vs floor');
    const dataDir = path.join(root, 'throughput-data');
    const ceilingDir = path.join(root, 'ceiling-data');
    mkdirSync(dataDir);
    mkdirSync(ceilingDir);
    const contactor = await startChild<{ ready: boolean; port: number; token: string }>(
      path.join(buildDir, 'contactor-echo.mjs'),
      [dataDir],
      { nodeFlags: HEADLESS_NODE_FLAGS },
    );
    // Started like contactor (same Node flags): the two durable servers differ only in their code.
    const ceiling = await startChild<{ ready: boolean; port: number; token: string }>(
      path.join(buildDir, 'durable-ceiling.mjs'),
      [ceilingDir],
      { nodeFlags: HEADLESS_NODE_FLAGS },
    );
    const reference = await startChild<{ ready: boolean; port: number }>(path.join(buildDir, 'reference-echo.mjs'));
    const floor = await startChild<{ ready: boolean; port: number }>(path.join(buildDir, 'bare-floor.mjs'));
    try {
      const tp = await measureThroughput({
        servers: [
          echoServer('contactor', contactor),
          echoServer('ceiling', ceiling),
          { name: 'reference', pid: reference.pid, port: reference.info.port, path: '/', headers: {} },
          { name: 'floor', pid: floor.pid, port: floor.info.port, path: '/', headers: {} },
        ],
        ...counts.throughput,
      });
      results.throughput = tp;
      rows.push(...throughputRows(tp, counts.throughput.concurrencies));
      for (const r of tp) figures[`tp.c${r.concurrency}.${r.server}`] = r.tasksPerSecond;
    } finally {
      await Promise.all([contactor.stop(), ceiling.stop(), reference.stop(), floor.stop()]);
      // Their databases are tens of MB of pages not yet on disk: dropped now, they are never written back
      // while the next sections measure latency.
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(ceilingDir, { recursive: true, force: true });
    }
  }

  if (sections.has('breakdown')) {
    log('breakdown: the product vs variants with a part taken out, reference and floor');
    const { concurrencies, ...tpCounts } = counts.throughput;
    const breakdown = await measureBreakdown({
      buildDir,
      root,
      counts: tpCounts,
      concurrencies: concurrencies.filter((c) => c > 1),
    });
    results.breakdown = breakdown.results;
    rows.push(...breakdown.rows);
  }

  if (sections.has('acp') || sections.has('streaming')) {
    const agentCommand = (file: string) => [process.execPath, file];
    const echoAgent = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');
    const stampAgent = path.join(BENCH_DIR, 'fixtures', 'stamp-agent.mjs');
    const acpAgent = (file: string) => ({
      kind: 'acp',
      command: agentCommand(file),
      append_decision_contract: false,
      timeout_s: 120,
    });
    const bridge = await startBridgeChild({
      buildDir,
      root,
      dataDir: path.join(root, 'acp-data'),
      agents: { echo: acpAgent(echoAgent), stamp: acpAgent(stampAgent) },
    });
    const via = (agent: string) => ({ port: bridge.info.port, token: bridge.info.token, agent });
    try {
      if (sections.has('acp')) {
        log('ACP overhead: SDK client direct vs through the bridge');
        const direct = await openDirectAgent(agentCommand(echoAgent));
        try {
          const acp = await measureAcpOverhead({ direct, bridge: via('echo'), ...counts.acp });
          results.acpOverhead = acp;
          rows.push(
            {
              section: 'ACP echo',
              measure: 'added latency p50',
              contactor: ms(acp.bridgeP50Ms),
              baseline: `${ms(acp.directP50Ms)} direct`,
              comparison: `+${ms(acp.addedP50Ms)}`,
            },
            {
              section: 'ACP echo',
              measure: 'added latency p99',
              contactor: ms(acp.bridgeP99Ms),
              baseline: `${ms(acp.directP99Ms)} direct`,
              comparison: `+${ms(acp.addedP99Ms)}`,
            },
          );
        } finally {
          await direct.close();
        }
      }
      if (sections.has('streaming')) {
        log('streaming: stamped chunks and a 10 MB reply');
        const direct = await openDirectAgent(agentCommand(stampAgent));
        try {
          const big = await measureChunkLatency({ direct, bridge: via('stamp'), ...counts.stamps });
          const small = await measureChunkLatency({ direct, bridge: via('stamp'), ...counts.smallStamps });
          const cpuBefore = cpuMs(bridge.pid);
          const writtenBefore = writtenBytes(bridge.pid);
          const bulk = await measureBulk({ direct, bridge: via('stamp'), ...counts.bulk });
          const cpuAfter = cpuMs(bridge.pid);
          const writtenAfter = writtenBytes(bridge.pid);
          const bridgeCpuMsPerMB =
            cpuBefore === undefined || cpuAfter === undefined
              ? undefined
              : (cpuAfter - cpuBefore) / (bulk.megabytes * bulk.pairs);
          // MB written per MB of reply: the SQLite files and the SSE response (about 1.05 of it).
          const bridgeWrittenPerMB =
            writtenBefore === undefined || writtenAfter === undefined
              ? undefined
              : (writtenAfter - writtenBefore) / 1e6 / (bulk.megabytes * bulk.pairs);
          results.streaming = {
            chunkLatency: big,
            smallChunkLatency: small,
            bulk: { ...bulk, bridgeCpuMsPerMB, bridgeWrittenPerMB },
          };
          Object.assign(figures, {
            'sse.bridgeP99Ms': big.bridgeP99Ms,
            'sse.directP99Ms': big.directP99Ms,
            'sse.smallBridgeP99Ms': small.bridgeP99Ms,
            'sse.smallDirectP99Ms': small.directP99Ms,
            'bulk.bridgeMBps': bulk.bridgeMBps,
            'bulk.directMBps': bulk.directMBps,
          });
          rows.push(
            {
              section: 'SSE',
              measure: `chunk latency p50 / p99 (${big.chunkChars}-char chunks)`,
              contactor: `${ms(big.bridgeP50Ms)} / ${ms(big.bridgeP99Ms)}`,
              baseline: `${ms(big.directP50Ms)} / ${ms(big.directP99Ms)} direct`,
              comparison: `p99 ${(big.bridgeP99Ms / big.directP99Ms).toFixed(2)}×`,
            },
            {
              section: 'SSE',
              measure: `chunk latency p50 / p99 (${small.chunkChars}-char chunks every ${small.intervalMs} ms)`,
              contactor: `${ms(small.bridgeP50Ms)} / ${ms(small.bridgeP99Ms)}`,
              baseline: `${ms(small.directP50Ms)} / ${ms(small.directP99Ms)} direct`,
              comparison: `p99 +${ms(small.bridgeP99Ms - small.directP99Ms)} (batching window ${CHUNK_IDLE_MS} ms)`,
            },
            {
              section: 'SSE',
              measure: `10 MB reply (${bulk.chunkChars}-char chunks, ~${bulk.bridgeEvents} SSE events; median of ${bulk.pairs} each way)`,
              contactor: `${bulk.bridgeMBps.toFixed(1)} MB/s`,
              baseline: `${bulk.directMBps.toFixed(1)} MB/s direct`,
              comparison: `${((bulk.bridgeMBps / bulk.directMBps) * 100).toFixed(0)}% of direct${bridgeCpuMsPerMB === undefined ? '' : `; bridge CPU ${bridgeCpuMsPerMB.toFixed(0)} ms per MB`}`,
            },
            {
              section: 'SSE',
              measure: '10 MB reply: CPU per MB of each process',
              contactor: `bridge ${bridgeCpuMsPerMB === undefined ? '?' : bridgeCpuMsPerMB.toFixed(0)} ms, its SSE reader ${bulk.cpuMsPerMB.sseClient.toFixed(0)} ms`,
              baseline: `SDK client ${bulk.cpuMsPerMB.directClient.toFixed(0)} ms, agent ${bulk.cpuMsPerMB.agent === undefined ? '?' : bulk.cpuMsPerMB.agent.toFixed(0)} ms`,
              comparison:
                bridgeCpuMsPerMB === undefined
                  ? ''
                  : `bridge ${(bridgeCpuMsPerMB / bulk.cpuMsPerMB.directClient).toFixed(1)}× the SDK client alone`,
            },
            {
              section: 'SSE',
              measure: '10 MB reply: bytes the bridge writes per MB (SQLite files + the SSE response)',
              contactor: bridgeWrittenPerMB === undefined ? '?' : `${bridgeWrittenPerMB.toFixed(2)} MB`,
              baseline: '',
              comparison: '',
            },
          );
        } finally {
          await direct.close();
        }
      }
    } finally {
      await bridge.stop();
    }
  }

  if (sections.has('cli')) {
    log('CLI start-up: the contactor command vs a bare node -e 0');
    const cli = await cliStartup({ buildDir, root, counts: counts.cli });
    results.cliStartup = cli.results;
    rows.push(...cli.rows);
    Object.assign(figures, cli.figures);
  }

  if (sections.has('scale')) {
    log(`scale: ${counts.scale.tasks} stored tasks`);
    const scale = await measureScale({
      buildDir,
      root,
      cacheDir,
      ...counts.scale,
      log,
    });
    results.scale = scale;
    const f = scale.floor;
    Object.assign(figures, {
      'scale.getP99Ms': scale.getP99Ms,
      'scale.getRttP99Ms': f.getRttP99Ms,
      'scale.listP99Ms': scale.listP99Ms,
      'scale.listRttP99Ms': f.listRttP99Ms,
      'scale.startupMs': scale.startupMs,
      'scale.floorStartupMs': f.startupMs,
      ...(scale.idleRssMb !== undefined && f.idleRssMb !== undefined
        ? { 'scale.idleRssMb': scale.idleRssMb, 'scale.floorIdleRssMb': f.idleRssMb }
        : {}),
    });
    const n = `${Math.round(scale.tasks / 1000)}k tasks`;
    rows.push(
      {
        section: 'scale',
        measure: `tasks/get p50 / p99 (${n})`,
        contactor: `${ms(scale.getP50Ms)} / ${ms(scale.getP99Ms)}`,
        baseline: `${ms(f.getRttP50Ms)} / ${ms(f.getRttP99Ms)} floor round trip`,
        comparison: `p99 ${(scale.getP99Ms / f.getRttP99Ms).toFixed(2)}×`,
      },
      {
        section: 'scale',
        measure: `ListTasks p50 / p99 (page of ${scale.listPageSize}, ${n})`,
        contactor: `${ms(scale.listP50Ms)} / ${ms(scale.listP99Ms)}`,
        baseline: `${ms(f.listRttP50Ms)} / ${ms(f.listRttP99Ms)} floor round trip`,
        comparison: `p99 ${(scale.listP99Ms / f.listRttP99Ms).toFixed(2)}×`,
      },
      {
        section: 'scale',
        measure: 'database size per task',
        contactor: `${(scale.dbBytesPerTask / 1024).toFixed(2)} KiB`,
        baseline: '',
        comparison: `${((scale.dbBytesPerTask * scale.tasks) / 1024 ** 2).toFixed(0)} MiB total`,
      },
      {
        section: 'scale',
        measure: `start-up to healthy (${n})`,
        contactor: ms(scale.startupMs),
        baseline: `${ms(f.startupMs)} bare node:http`,
        comparison: `${(scale.startupMs / f.startupMs).toFixed(2)}×`,
      },
      ...(scale.startupCpuMs !== undefined && f.startupCpuMs !== undefined
        ? [
            {
              section: 'scale',
              measure: `start-up CPU time to healthy (${n})`,
              contactor: ms(scale.startupCpuMs),
              baseline: `${ms(f.startupCpuMs)} bare node:http`,
              comparison: `${(scale.startupCpuMs / f.startupCpuMs).toFixed(2)}× (wall time waits on a busy machine; CPU does not)`,
            },
          ]
        : []),
      {
        section: 'scale',
        measure: 'idle RSS, headless',
        contactor: mb(scale.idleRssMb),
        baseline: `${mb(f.idleRssMb)} bare node:http`,
        comparison: `after load: ${mb(scale.rssAfterLoadMb)}`,
      },
    );
  }
  if (sections.has('soak')) {
    log(`soak: ${counts.soak.total} tasks through one bridge, measured after ${counts.soak.early} and at the end`);
    const soak = await measureSoak({ buildDir, root, ...counts.soak, log });
    results.soak = soak;
    const [early, end] = soak.points as [SoakPoint, SoakPoint];
    Object.assign(figures, {
      'soak.earlyRssMb': early.rssMb,
      'soak.endRssMb': end.rssMb,
      'soak.earlyHeapMb': early.heapUsedMb,
      'soak.endHeapMb': end.heapUsedMb,
      'soak.earlyDatabaseMb': early.databaseMb,
      'soak.endDatabaseMb': end.databaseMb,
    });
    const at = (p: SoakPoint) => `${Math.round(p.tasks / 1000)}k`;
    const pair = (a: number, b: number) => `${a.toFixed(1)} → ${b.toFixed(1)} MB`;
    const within = (a: number, b: number) => `${(b / a).toFixed(2)}×`;
    rows.push(
      {
        section: 'soak',
        measure: `RSS after a full GC, ${at(early)} → ${at(end)} tasks`,
        contactor: pair(early.rssMb, end.rssMb),
        baseline: `itself at ${at(early)}`,
        comparison: within(early.rssMb, end.rssMb),
      },
      {
        section: 'soak',
        measure: `heap used after a full GC, ${at(early)} → ${at(end)} tasks`,
        contactor: pair(early.heapUsedMb, end.heapUsedMb),
        baseline: `itself at ${at(early)}`,
        comparison: within(early.heapUsedMb, end.heapUsedMb),
      },
      {
        section: 'soak',
        measure: `where the RSS is, ${at(early)} → ${at(end)} tasks`,
        contactor: `V8 heap committed ${pair(early.heapTotalMb, end.heapTotalMb)}; external ${pair(early.externalMb, end.externalMb)}`,
        baseline: `anonymous ${pair(early.rssAnonMb ?? NaN, end.rssAnonMb ?? NaN)}; file ${pair(early.rssFileMb ?? NaN, end.rssFileMb ?? NaN)}`,
        comparison: 'SQLite caches 16 MB per connection (two)',
      },
      {
        section: 'soak',
        measure: `database (history.max_tasks ${soak.maxTasks}), ${at(early)} → ${at(end)} tasks`,
        contactor: pair(early.databaseMb, end.databaseMb),
        baseline: `itself at ${at(early)}`,
        comparison: within(early.databaseMb, end.databaseMb),
      },
      {
        section: 'soak',
        measure: `data dir (database, audit log ≤ 4 × 5 MB, bridge log), ${at(early)} → ${at(end)} tasks`,
        contactor: pair(early.dataDirMb, end.dataDirMb),
        baseline: '',
        comparison: `${early.perSecond.toFixed(0)} / ${end.perSecond.toFixed(0)} tasks/s; ${soak.seconds.toFixed(0)} s`,
      },
    );
  }
  return { rows, figures, results };
}

function throughputRows(tp: ThroughputRow[], concurrencies: number[]): Row[] {
  return concurrencies.flatMap((c) => {
    const at = (name: string) => tp.find((r) => r.server === name && r.concurrency === c)!;
    const [ours, top, ref, flo] = [at('contactor'), at('ceiling'), at('reference'), at('floor')];
    const lat = (r: ThroughputRow) =>
      `${perS(r.tasksPerSecond)} (p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}${r.cpuUsPerRequest === undefined ? '' : `, ${Math.round(r.cpuUsPerRequest)} µs CPU/req`})`;
    const failures = ours.failures + top.failures + ref.failures + flo.failures;
    if (failures > 0) throw new Error(`throughput at concurrency ${c}: ${failures} requests failed`);
    return [
      {
        section: 'throughput',
        measure: `blocking sends, concurrency ${c}, vs reference`,
        contactor: lat(ours),
        baseline: `${lat(ref)} @a2a-js/sdk`,
        comparison: `${(ours.tasksPerSecond / ref.tasksPerSecond).toFixed(2)}×`,
      },
      {
        section: 'throughput',
        measure: `blocking sends, concurrency ${c}, vs the durable ceiling`,
        contactor: perS(ours.tasksPerSecond),
        baseline: `${lat(top)} durable ceiling (${(top.tasksPerSecond / ref.tasksPerSecond).toFixed(2)}× reference)`,
        comparison: `${((ours.tasksPerSecond / top.tasksPerSecond) * 100).toFixed(0)}% of ceiling`,
      },
      {
        section: 'throughput',
        measure: `blocking sends, concurrency ${c}, vs floor`,
        contactor: perS(ours.tasksPerSecond),
        baseline: `${lat(flo)} bare node:http`,
        comparison: `${((ours.tasksPerSecond / flo.tasksPerSecond) * 100).toFixed(0)}% of floor`,
      },
    ];
  });
}
