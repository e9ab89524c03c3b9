/**
 * Two commits of the product side by side in one throughput harness, with the durable ceiling beside them:
 * each commit's echo server (bench/servers/contactor-echo.ts as that commit has it, bundled as the benchmark
 * bundles it) and the ceiling of the working tree take turns round by round, so a change is measured
 * against the tree before it at the same moments of a shared machine. Prints, per concurrency, each
 * server's rate and CPU per request and the two commits' share of the ceiling's rate.
 *
 * `npx tsx bench/ab.ts --before=<commit> [--after=<commit>] [--count=2000] [--warmup=300] [--rounds=3]`
 * (`--after` defaults to HEAD). A commit's tree is exported once to <tmp>/contactor-ab/<commit>/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADLESS_NODE_FLAGS } from '../main/cli/bridge-client/node-flags.js';
import { BENCH_DIR, bundleServers, startChild, type RunningChild } from './lib/children.js';
import { builtAt, git } from './lib/commit-tree.js';
import { flag } from './lib/flags.js';
import { echoServer, measureThroughput, type ServerUnderTest } from './sections/throughput.js';

const before = flag('before');
if (!before) {
  console.error('usage: npx tsx bench/ab.ts --before=<commit> [--after=<commit>] [--count=n] [--rounds=n]');
  process.exit(2);
}
const commits = { before: git('rev-parse', before), after: git('rev-parse', flag('after') ?? 'HEAD') };
const echoAt = async (commit: string): Promise<string> =>
  path.join(await builtAt(commit, ['contactor-echo']), 'contactor-echo.mjs');

type Ready = { ready: boolean; port: number; token: string };
const ceilingBuild = path.join(BENCH_DIR, 'results', 'ab-ceiling');
await bundleServers(['durable-ceiling'], ceilingBuild);
const files = { before: await echoAt(commits.before), after: await echoAt(commits.after) };
const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-ab-'));
const children: RunningChild<Ready>[] = [];
try {
  const servers: ServerUnderTest[] = [];
  const entries = [
    ['before', files.before],
    ['after', files.after],
    ['ceiling', path.join(ceilingBuild, 'durable-ceiling.mjs')],
  ] as const;
  for (const [name, file] of entries) {
    const dataDir = path.join(root, name);
    mkdirSync(dataDir);
    const child = await startChild<Ready>(file, [dataDir], { nodeFlags: HEADLESS_NODE_FLAGS });
    children.push(child);
    servers.push(echoServer(name, child));
  }
  const load = os.loadavg().map((l) => l.toFixed(1));
  const rows = await measureThroughput({
    servers,
    concurrencies: [8, 32],
    count: Number(flag('count') ?? 2000),
    warmup: Number(flag('warmup') ?? 300),
    rounds: Number(flag('rounds') ?? 3),
  });
  console.log(
    `before ${commits.before.slice(0, 7)}, after ${commits.after.slice(0, 7)}; load ${load.join(' ')} → ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const c of [8, 32]) {
    const at = (name: string) => rows.find((r) => r.server === name && r.concurrency === c)!;
    const ceiling = at('ceiling');
    const cells = (['before', 'after', 'ceiling'] as const).map((name) => {
      const row = at(name);
      const share = name === 'ceiling' ? '' : ` (${Math.round((row.tasksPerSecond / ceiling.tasksPerSecond) * 100)}%)`;
      return `${name} ${Math.round(row.tasksPerSecond)}/s${share} ${Math.round(row.cpuUsPerRequest ?? 0)} µs${row.failures ? ` ${row.failures} failed` : ''}`;
    });
    console.log(`c=${c}: ${cells.join(' | ')}`);
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(root, { recursive: true, force: true });
}
