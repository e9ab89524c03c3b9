/** Wine lane only: the Linux-side phase of `npm run test:windows` (run.mjs runs it on Linux's Node 24). */
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '..', '..', '..'),
  test: {
    include: ['tests/windows-lane/from-linux/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
