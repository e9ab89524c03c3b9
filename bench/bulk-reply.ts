/**
 * `npx tsx bench/bulk-reply.ts [--replies=4] [--mb=10]` (not part of `npm run bench`): the 10 MB reply
 * through the bundled headless bridge alone, no direct transfers between them, to read what the bridge's
 * own work per MB costs apart from how two shared cores were split: for each reply its rate, the bridge's
 * CPU per MB (all threads), the bytes it handed to write calls per MB (its SQLite files and the SSE
 * response: /proc/<pid>/io `wchar`) and its SSE events. The first reply warms the bridge up; the medians
 * are of the others. Run it in two trees in turn to compare two versions (docs/benchmark.md#round-6-the-10-mb-reply).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBridgeChild } from './lib/bridge-child.js';
import { BENCH_DIR, bundleServers, cpuMs, writtenBytes } from './lib/children.js';
import { flag } from './lib/flags.js';
import { median } from './lib/stats.js';
import { streamThroughBridge } from './sections/streaming.js';

const replies = Number(flag('replies') ?? 4);
const megabytes = Number(flag('mb') ?? 10);
if (!Number.isInteger(replies) || replies < 2 || !(megabytes > 0)) {
  console.error('usage: npx tsx bench/bulk-reply.ts [--replies=<n, at least 2>] [--mb=<MB per reply>]');
  process.exit(2);
}

const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-bulk-'));
try {
  // Inside the repository, so the bundle finds better-sqlite3 in node_modules.
  const buildDir = path.join(BENCH_DIR, 'results', 'build-bulk');
  await bundleServers(['bridge-serve'], buildDir);
  const stamp = {
    kind: 'acp',
    command: [process.execPath, path.join(BENCH_DIR, 'fixtures', 'stamp-agent.mjs')],
    append_decision_contract: false,
    timeout_s: 300,
  };
  const bridge = await startBridgeChild({ buildDir, root, dataDir: path.join(root, 'data'), agents: { stamp } });
  const bytes = Math.round(megabytes * 1024 * 1024);
  const mb = bytes / 1e6;
  const rows: { mbps: number; cpuMsPerMB: number; writtenPerMB: number; events: number }[] = [];
  try {
    for (let i = 0; i < replies; i += 1) {
      const cpu0 = cpuMs(bridge.pid) ?? NaN;
      const written0 = writtenBytes(bridge.pid) ?? NaN;
      const t0 = performance.now();
      let received = 0;
      const events = await streamThroughBridge(
        { port: bridge.info.port, token: bridge.info.token, agent: 'stamp' },
        `bulk ${bytes} 1024`,
        (text) => (received += text.length),
      );
      const seconds = (performance.now() - t0) / 1000;
      if (received !== bytes) throw new Error(`the reply carried ${received} characters, not ${bytes}`);
      const row = {
        mbps: mb / seconds,
        cpuMsPerMB: ((cpuMs(bridge.pid) ?? NaN) - cpu0) / mb,
        writtenPerMB: ((writtenBytes(bridge.pid) ?? NaN) - written0) / 1e6 / mb,
        events,
      };
      rows.push(row);
      console.log(
        `reply ${i + 1}${i === 0 ? ' (warm-up)' : ''}: ${row.mbps.toFixed(1)} MB/s, bridge ${row.cpuMsPerMB.toFixed(0)} ms CPU per MB, ` +
          `${row.writtenPerMB.toFixed(2)} MB written per MB, ${row.events} SSE events`,
      );
    }
  } finally {
    await bridge.stop();
  }
  const measured = rows.slice(1);
  const mid = (pick: (r: (typeof rows)[number]) => number) => median(measured.map(pick));
  console.log(
    `median of ${measured.length}: ${mid((r) => r.mbps).toFixed(1)} MB/s, bridge ${mid((r) => r.cpuMsPerMB).toFixed(1)} ms CPU per MB, ` +
      `${mid((r) => r.writtenPerMB).toFixed(2)} MB written per MB, ${mid((r) => r.events)} SSE events; load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
