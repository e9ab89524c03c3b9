/**
 * `npx tsx bench/profile-layers.ts [--concurrency=8] [--sends=6000] [--warmup=500]` (not part of
 * `npm run bench`): where a blocking send's CPU goes, by layer, in the product's echo server and in the
 * durable ceiling under the same load. Both run from source (`--import tsx`), so a CPU profile names every
 * file, which the bundles do not; each thread's profile is read as the self time per send of each layer:
 * a `main/` folder, a `bench/` file, a package, node's internals, GC. V8 counts the time of a native call
 * (a better-sqlite3 statement, a socket write) to its JavaScript caller, so the SQL is inside `main/stores`
 * (bench/sql-time/per-send.ts times it alone). Profiling slows both servers alike; the layers' ratios are
 * the figure, not the totals. The loader's own work (tsx, esbuild) is start-up and left out.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADLESS_NODE_FLAGS } from '../main/cli/bridge-client/node-flags.js';
import { BENCH_DIR, REPO_ROOT, startChild, type RunningChild } from './lib/children.js';
import { throughputFlags } from './lib/flags.js';
import { echoServer, measureThroughput, type ServerUnderTest } from './sections/throughput.js';

const { concurrency, sends, warmup } = throughputFlags('bench/profile-layers.ts', {
  concurrency: 8,
  sends: 6000,
  warmup: 500,
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The layer a frame's own code belongs to; undefined for a native frame (counted to its caller). */
function layerOf({ callFrame: { functionName, url } }: ProfileNode): string | undefined {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'program (V8 outside JavaScript)';
  const own = /\/(main|bench)\/([^/]+)(\/[^/]+)?/.exec(url.slice(`file://${REPO_ROOT}`.length));
  if (url.startsWith(`file://${REPO_ROOT}/`) && !url.includes('/node_modules/') && own)
    return own[1] === 'main' && own[3] ? `main/${own[2]}/` : `${own[1]}/${own[2]}${own[3] ?? ''}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  return undefined;
}

/** µs of self time per send by layer, busy time only. */
function layers(profile: Profile, perSends: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    let layer: string | undefined;
    for (let at: number | undefined = id; layer === undefined && at !== undefined; at = parent.get(at))
      layer = layerOf(byId.get(at)!);
    layer ??= 'native (no JavaScript caller)';
    if (layer === 'idle' || layer === 'pkg:tsx' || layer === 'pkg:esbuild') return;
    out.set(layer, (out.get(layer) ?? 0) + (profile.timeDeltas[i] ?? 0) / perSends);
  });
  return out;
}

type Ready = { ready: boolean; port: number; token: string };
const SERVERS = [
  ['product', 'contactor-echo.ts'],
  ['ceiling', 'durable-ceiling.ts'],
] as const;
const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-layers-'));
const children: RunningChild<Ready>[] = [];
try {
  const servers: ServerUnderTest[] = [];
  for (const [name, file] of SERVERS) {
    const dataDir = path.join(root, name);
    const profiles = path.join(root, `${name}-profiles`);
    mkdirSync(dataDir);
    mkdirSync(profiles);
    const child = await startChild<Ready>(path.join(BENCH_DIR, 'servers', file), [dataDir], {
      nodeFlags: [...HEADLESS_NODE_FLAGS, '--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', profiles],
      timeoutMs: 60_000,
    });
    children.push(child);
    servers.push(echoServer(name, child));
  }
  const load = os.loadavg()[0]!.toFixed(1);
  const rows = await measureThroughput({ servers, concurrencies: [concurrency], count: sends, warmup, rounds: 1 });
  // A profile is written when its process exits.
  await Promise.all(children.map((c) => c.stop()));
  console.log(`c=${concurrency}, ${sends} sends after ${warmup} of warm-up, load ${load}; µs of CPU per send`);
  for (const [name] of SERVERS) {
    const row = rows.find((r) => r.server === name)!;
    console.log(`\n${name}: ${Math.round(row.tasksPerSecond)}/s, ${Math.round(row.cpuUsPerRequest ?? 0)} µs per send`);
    const dir = path.join(root, `${name}-profiles`);
    for (const file of readdirSync(dir).sort()) {
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
      const thread = file.split('.')[4] === '0' ? 'main thread' : 'worker thread';
      const byLayer = layers(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile, sends + warmup);
      const busy = [...byLayer.values()].reduce((a, b) => a + b, 0);
      console.log(`  ${thread}: ${busy.toFixed(0)} µs busy`);
      for (const [layer, us] of [...byLayer].sort((a, b) => b[1] - a[1]))
        if (us >= 1) console.log(`    ${us.toFixed(0).padStart(5)} µs  ${layer}`);
    }
  }
} finally {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(root, { recursive: true, force: true });
}
