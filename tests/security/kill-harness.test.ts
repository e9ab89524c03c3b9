/**
 * The kill -9 harness itself: its replays must stay below the bridge's connection cap, or the
 * soak fails on the cap (-32065 "too many connections") instead of proving 0 lost / 0 run twice.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS } from '../../main/transport/connection-guard.js';
import { REPLAY_CONCURRENCY, mapBounded } from './kill-harness.js';

describe('kill harness replays', () => {
  it('keeps at most the limit in flight, every item once, results in order', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 600 }, (_, i) => i);
    const results = await mapBounded(items, REPLAY_CONCURRENCY, async (i) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      seen.push(i);
      // Finish out of order, as replies do.
      await new Promise((r) => setTimeout(r, i % 3));
      inFlight -= 1;
      return i * 2;
    });
    expect(peak).toBe(REPLAY_CONCURRENCY);
    expect(seen.sort((a, b) => a - b)).toEqual(items);
    expect(results).toEqual(items.map((i) => i * 2));
  });

  it('replays below the bridge-wide connection cap', () => {
    expect(REPLAY_CONCURRENCY).toBeGreaterThan(1);
    expect(REPLAY_CONCURRENCY).toBeLessThan(DEFAULT_CONNECTION_LIMITS.maxConnections);
  });

  it('handles fewer items than the limit, and none', async () => {
    expect(await mapBounded([1, 2], 64, async (x) => x + 1)).toEqual([2, 3]);
    expect(await mapBounded([], 64, async (x: number) => x)).toEqual([]);
  });
});
