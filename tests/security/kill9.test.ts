/** kill -9 of the bridge during load, restart, repeat (3 rounds here; `npm run soak` runs many). */
import { describe, expect, it } from 'vitest';
import { runKillRounds } from './kill-harness.js';

describe.skipIf(process.platform === 'win32')('kill -9 during load', () => {
  it('finds every accepted task afterwards, truthfully, and never runs a replayed messageId twice', async () => {
    const figures = await runKillRounds({ rounds: 3, sendsPerRound: 30 });
    console.info(`kill -9 figures: ${JSON.stringify(figures)}`);
    expect(figures.kills).toBe(3);
    expect(figures.accepted).toBeGreaterThan(0);
    expect(figures.tasksChecked).toBeGreaterThanOrEqual(figures.accepted);
    expect(figures.duplicateRuns).toBe(0);
    expect(figures.leakedProcesses).toBe(0);
  }, 240_000);
});
