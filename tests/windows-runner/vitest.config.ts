/** The hosted Windows runner's test step: the explicit list in suite-files.ts, with the main suite's timeouts. */
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { excludedTestsPattern } from '../windows-lane/lane-files.js';
import { WINDOWS_RUNNER_FILES } from './suite-files.js';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: {
    include: WINDOWS_RUNNER_FILES,
    testNamePattern: excludedTestsPattern(),
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['tests/global-setup.ts'],
  },
});
