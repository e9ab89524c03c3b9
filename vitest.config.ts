import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { TEST_TIMEOUT_MS } from './tests/helpers/timeouts.js';

/**
 * Files that need a fresh worker of their own: they swap a module (`electron`, `node:fs`) with vi.mock, which only holds
 * for modules first loaded after it (a module another file had loaded would keep the real import).
 */
// Files that replace a module with vi.mock: in a shared worker the module may already be loaded unmocked.
const ISOLATED = [
  'tests/shell/app.test.ts',
  'tests/shell/approval-ipc.test.ts',
  'tests/audit/audit-writes.test.ts',
  'tests/cli/command-runner.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: TEST_TIMEOUT_MS,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single worker on a 2-core machine, where most
    // files spend their time waiting on child processes and sockets. Each file still has its own ports
    // (port 0), data dir, config and HOME, so files run side by side. Two workers per core: most of a file's
    // time is spent waiting, not computing. Measured on the 2-core machine at load < 0.5, the whole suite took
    // 91–101 s with 2 workers, 83 s with 3 and 68–85 s with 4; with 4 it also passes beside the kill -9 soak.
    // A number, not '200%': vitest caps a percentage at the core count (resolveMaxWorkers).
    maxWorkers: availableParallelism() * 2,
    globalSetup: ['tests/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['tests/**/*.test.ts'],
          // Windows-only tests run under the real Windows Node in `npm run test:windows`.
          exclude: [...configDefaults.exclude, 'tests/windows-lane/**', ...ISOLATED],
          // A worker runs file after file with the modules it already loaded (main/ keeps no module-level state
          // a test could see): re-importing and re-warming the bridge in a fresh process per file took about half
          // of the suite's CPU time. Files that need a clean module graph go in ISOLATED.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
