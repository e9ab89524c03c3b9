/** Wine lane only: vitest settings for the curated set run under the Windows Node (see run.mjs). */
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { LANE_FILES, excludedTestsPattern } from './lane-files.js';
import FileProgressReporter from './file-reporter.js';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: {
    include: LANE_FILES,
    testNamePattern: excludedTestsPattern(),
    // The main suite's timeout: tests wait for events, so on a busy machine (Wine starts a Node process in
    // ~0.5-1 s even when idle) they get slower, never red. One worker: with two, on a loaded 2-core machine,
    // Wine's CreateProcess failed now and then (`spawn UNKNOWN`) — a Wine limit, not ours.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    maxWorkers: 1,
    globalSetup: ['tests/windows-lane/global-setup.ts'],
    // One line per finished file into CONTACTOR_LANE_PROGRESS, which run.mjs prints as the run goes.
    reporters: ['default', new FileProgressReporter()],
  },
});
