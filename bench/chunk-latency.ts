/**
 * `npx tsx bench/chunk-latency.ts [--before=<commit>] [--runs=4] [--chunks=300] [--interval=10] [--chars=48]`
 * (not part of `npm run bench`): the benchmark's small-chunk latency (bench/sections/streaming.ts: the stamp
 * agent writes `--chars` characters every `--interval` ms, each stamped with its send time) through the
 * bundled headless bridge of the working tree, and with `--before` through that commit's bridge too, taking
 * turns with the direct path run by run (the order turning each run), so two versions are compared at the
 * same moments of a shared machine. Prints each run's p50 / p99 and its worst chunks, and the p99 each
 * bridge adds to the direct path's (the goal's measure: docs/benchmark.md#small-chunks-within-the-batching-window).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDirectAgent } from './lib/acp-direct.js';
import { startBridgeChild, type BridgeChild } from './lib/bridge-child.js';
import { BENCH_DIR, bundleServers } from './lib/children.js';
import { builtAt, git } from './lib/commit-tree.js';
import { flag } from './lib/flags.js';
import { median, percentile } from './lib/stats.js';
import { now, stampsIn, streamThroughBridge } from './sections/streaming.js';

const [runs, chunks, interval, chars] = [
  Number(flag('runs') ?? 4),
  Number(flag('chunks') ?? 300),
  Number(flag('interval') ?? 10),
  Number(flag('chars') ?? 48),
];
if (![runs, chunks, interval].every((n) => Number.isInteger(n) && n >= 1) || !(chars >= 16)) {
  console.error(
    'usage: npx tsx bench/chunk-latency.ts [--before=<commit>] [--runs=<n>] [--chunks=<n>] [--interval=<ms>] [--chars=<n, at least 16>]',
  );
  process.exit(2);
}
const before = flag('before');

const stampAgent = path.join(BENCH_DIR, 'fixtures', 'stamp-agent.mjs');

const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-chunks-'));
const bridges: { name: string; child: BridgeChild }[] = [];
try {
  const workingBuild = path.join(BENCH_DIR, 'results', 'build-chunks');
  await bundleServers(['bridge-serve'], workingBuild);
  const builds = [{ name: 'working tree', buildDir: workingBuild }];
  if (before)
    builds.unshift({
      name: git('rev-parse', '--short', before),
      buildDir: await builtAt(git('rev-parse', before), ['bridge-serve']),
    });
  for (const { name, buildDir } of builds) {
    const child = await startBridgeChild({
      buildDir,
      root,
      dataDir: path.join(root, `data-${bridges.length}`),
      agents: { stamp: { kind: 'acp', command: [process.execPath, stampAgent], append_decision_contract: false } },
    });
    bridges.push({ name, child });
  }
  const direct = await openDirectAgent([process.execPath, stampAgent]);
  const prompt = `stamp ${chunks} ${interval} ${chars}`;
  const added = new Map<string, number[]>(bridges.map((b) => [b.name, []]));
  try {
    for (let run = 0; run < runs; run += 1) {
      const line: string[] = [`run ${run + 1}, load ${os.loadavg()[0]!.toFixed(1)}:`];
      const direct99: number[] = [];
      const paths = [
        {
          name: 'direct',
          go: async (into: number[]) => void (await direct.prompt(prompt, (text) => stampsIn(text, now(), into))),
        },
        ...bridges.map(({ name, child }) => ({
          name,
          go: async (into: number[]) =>
            void (await streamThroughBridge(
              { port: child.info.port, token: child.info.token, agent: 'stamp' },
              prompt,
              (text, at) => stampsIn(text, at, into),
            )),
        })),
      ];
      if (run % 2 === 1) paths.reverse();
      const results = new Map<string, number[]>();
      for (const { name, go } of paths) {
        const into: number[] = [];
        await go(into);
        if (into.length !== chunks) throw new Error(`${name}: ${into.length} stamped chunks arrived, not ${chunks}`);
        results.set(name, into);
      }
      direct99.push(percentile(results.get('direct')!, 99));
      for (const [name, into] of results) {
        const worst = [...into]
          .sort((a, b) => b - a)
          .slice(0, 3)
          .map((d) => d.toFixed(1));
        line.push(
          `${name} ${percentile(into, 50).toFixed(1)} / ${percentile(into, 99).toFixed(1)} ms (worst ${worst.join(', ')})`,
        );
        if (name !== 'direct') added.get(name)!.push(percentile(into, 99) - direct99[0]!);
      }
      console.log(line.join('\n  '));
    }
  } finally {
    await direct.close();
  }
  for (const [name, list] of added)
    console.log(
      `${name}: p99 added to direct ${list.map((d) => d.toFixed(1)).join(' / ')} ms, median ${median(list).toFixed(1)}`,
    );
} finally {
  await Promise.all(bridges.map((b) => b.child.stop()));
  rmSync(root, { recursive: true, force: true });
}
