#!/usr/bin/env node
/**
 * `npm run test:agents`: the agents lane. Installs the pinned real agents (install.ts) into a cache folder,
 * then runs each through the bridge against our mock model servers (vitest.config.ts beside this file).
 * Extra arguments go to vitest (e.g. `codex` to run one agent's file).
 *
 * Where the agents cannot be installed, or Codex's sandbox (Debian's bubblewrap) is missing, it skips
 * with exit 0 — except with CI=true, where that is a failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { installPinnedAgents } from './install.ts';

const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

function skipOrFail(reason) {
  if (process.env.CI === 'true') {
    console.error(`agents lane: FAILED: ${reason}. With CI=true the lane never passes by skipping.`);
    process.exit(1);
  }
  console.log(`agents lane: skipped: ${reason}. CI always runs it.`);
  process.exit(0);
}

if (process.platform !== 'linux') skipOrFail('the lane runs on Linux only');
if (spawnSync('bwrap', ['--version']).status !== 0)
  skipOrFail("bubblewrap (Debian's `bwrap`, Codex's sandbox) is missing: apt-get install bubblewrap");

let versions;
try {
  const installed = await installPinnedAgents();
  versions = installed.versions;
  console.log(
    `agents lane: agents ${installed.reused ? 'already installed' : 'installed'} in ${seconds()}: ${Object.entries(
      versions,
    )
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')}`,
  );
} catch (err) {
  skipOrFail(err.message);
}

const vitest = spawn(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/agents-lane/vitest.config.ts', ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
vitest.on('exit', (code, signal) => {
  console.log(`agents lane: ${code === 0 ? 'passed' : 'FAILED'} in ${seconds()}`);
  process.exit(code ?? (signal ? 1 : 0));
});
