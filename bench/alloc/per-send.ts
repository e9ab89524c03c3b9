/**
 * Allocation per blocking send in the product's echo server (bench/servers/contactor-echo.ts, bundled as the
 * benchmark runs it):
 * warm-up sends, then V8's sampling heap profiler (collected objects included: bench/alloc/sampling-preload.ts)
 * over the measured sends, all at one concurrency. The client runs in this process, so only the server's
 * heap is sampled. Prints KiB per send and the functions that allocated most.
 *
 * `npx tsx bench/alloc/per-send.ts [--sends=3000] [--warmup=2000] [--concurrency=8] [--rounds=2]`
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bundleServers, BENCH_DIR } from '../lib/children.js';
import { KeepAliveClient, runLoad } from '../lib/http-client.js';
import { sendBody } from '../sections/throughput.js';

const flag = (name: string, fallback: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const sends = flag('sends', 3000);
const warmup = flag('warmup', 2000);
const concurrency = flag('concurrency', 8);
const rounds = flag('rounds', 2);
const buildDir = path.join(BENCH_DIR, 'results', 'alloc-build');
await bundleServers(['contactor-echo'], buildDir);

const dir = mkdtempSync(path.join(os.tmpdir(), 'alloc-per-send-'));
const out = path.join(dir, 'alloc.json');
const server = spawn(
  process.execPath,
  ['--import', path.join(BENCH_DIR, 'alloc', 'sampling-preload.mjs'), path.join(buildDir, 'contactor-echo.mjs'), dir],
  { env: { ...process.env, BENCH_ALLOC_OUT: out }, stdio: ['ignore', 'pipe', 'inherit'] },
);
try {
  const ready = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    createInterface({ input: server.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const client = new KeepAliveClient(
    { port: ready.port, headers: { authorization: `Bearer ${ready.token}` } },
    concurrency,
  );
  const load = (count: number) =>
    runLoad({
      count,
      concurrency,
      send: (i) => client.post('/agents/echo', sendBody(i)),
      check: (reply) => reply.status === 200 && reply.body.includes('"state":"completed"'),
    });
  await load(warmup);
  for (let round = 1; round <= rounds; round += 1) {
    rmSync(out, { force: true });
    rmSync(`${out}.started`, { force: true });
    server.kill('SIGUSR2');
    while (!existsSync(`${out}.started`)) await new Promise((r) => setTimeout(r, 20));
    const result = await load(sends);
    server.kill('SIGUSR2');
    while (!existsSync(out)) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 50));
    const { total, top } = JSON.parse(readFileSync(out, 'utf8')) as { total: number; top: [string, number][] };
    console.log(
      `round ${round}: ${(total / sends / 1024).toFixed(1)} KiB per send (${sends} sends at ${concurrency}, ${result.failures} failed, ${Math.round(result.perSecond)}/s)`,
    );
    if (round === rounds || process.argv.includes('--top-every-round'))
      for (const [name, bytes] of top.slice(0, Number(flag('top', 30))))
        console.log(`  ${String(Math.round(bytes / sends)).padStart(6)} B  ${name}`);
  }
  client.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
