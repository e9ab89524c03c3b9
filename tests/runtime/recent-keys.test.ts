/** RecentKeys (runtime/recent-keys.ts): a set of the `max` most recently used keys. */
import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../../main/runtime/recent-keys.js';

describe('RecentKeys', () => {
  it('forgets the least recently used key past max; a hit or a re-add is a use', () => {
    const keys = new RecentKeys(3);
    for (const k of ['a', 'b', 'c']) keys.add(k);
    expect(keys.has('a')).toBe(true); // order now b, c, a
    keys.add('b'); // c, a, b
    keys.add('d'); // a, b, d: c went
    expect(['a', 'b', 'c', 'd'].map((k) => keys.has(k))).toEqual([true, true, false, true]);
    expect(keys.size).toBe(3);
  });

  it('refuses a max below 1', () => {
    expect(() => new RecentKeys(0)).toThrow(/at least 1/);
  });
});
