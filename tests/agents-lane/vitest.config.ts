import { defineConfig } from 'vitest/config';

/**
 * The agents lane: one file per real agent, run side by side (each has its own bridge, HOME, workspace and
 * mock model server, so they never fight); the scenarios of one agent run in order on its bridge. All five
 * at once: each mostly waits on its agent and its mock, so the lane takes about as long as its slowest agent.
 */
export default defineConfig({
  test: {
    include: ['tests/agents-lane/*.lane.ts'],
    pool: 'forks',
    maxWorkers: 5,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    globalSetup: ['tests/agents-lane/global-setup.ts'],
  },
});
