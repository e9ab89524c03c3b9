import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Windows-only tests run under the real Windows Node in `npm run test:windows`.
    exclude: ['tests/windows-lane/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['tests/global-setup.ts'],
  },
});
