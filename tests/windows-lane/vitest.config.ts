/** Wine lane only: vitest settings for the curated set run under the Windows Node (see run.mjs). */
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { LANE_FILES, excludedTestsPattern } from './lane-files.js';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: {
    include: LANE_FILES,
    testNamePattern: excludedTestsPattern(),
    // Wine runs a Node process start-up in ~0.5-1 s, generous timeouts. One worker: with two, on a loaded
    // 2-core machine, Wine's CreateProcess failed now and then (`spawn UNKNOWN`) — a Wine limit, not ours.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    globalSetup: ['tests/windows-lane/global-setup.ts'],
  },
});
