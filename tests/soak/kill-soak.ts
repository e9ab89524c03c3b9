/**
 * The long kill -9 soak (opt-in: `npm run soak`). CONTACTOR_SOAK_ROUNDS (default 30) and
 * CONTACTOR_SOAK_SENDS (default 60 per round) set its size. Each round also takes the clean-restart
 * path first (stop, an outside sqlite3 read, start; CONTACTOR_SOAK_OUTSIDE_READS=0 skips it).
 * Exits 1 on the first broken promise.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/bridge.js';
import { runKillRounds } from '../security/kill-harness.js';

// The harness runs the built CLI (bin/contactor.js → out/cli): build it from this tree first, as
// tests/global-setup.ts does for `npm test`, so the soak never kills a stale bundle.
execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });

const rounds = Number(process.env.CONTACTOR_SOAK_ROUNDS ?? 30);
const sendsPerRound = Number(process.env.CONTACTOR_SOAK_SENDS ?? 60);
try {
  const figures = await runKillRounds({
    rounds,
    sendsPerRound,
    maxKillDelayMs: 1500,
    outsideReads: process.env.CONTACTOR_SOAK_OUTSIDE_READS !== '0',
    log: (line) => console.log(line),
  });
  console.log(`soak passed: ${JSON.stringify(figures)}`);
} catch (err) {
  console.error(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
