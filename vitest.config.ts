import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Windows-only tests run under the real Windows Node in `npm run test:windows`.
    exclude: [...configDefaults.exclude, 'tests/windows-lane/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['tests/global-setup.ts'],
  },
});
