/** RecentKeys (runtime/recent-keys.ts): a set of the `max` most recently used keys. */
import { describe, expect, it } from 'vitest';
import { RecentKeys, RecentMap } from '../../main/runtime/recent-keys.js';

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

describe('RecentMap', () => {
  it('keeps the max most recently used entries; a get that finds one is a use', () => {
    const map = new RecentMap<number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // order now b, a
    map.set('c', 3); // a, c: b went
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([1, undefined, 3, 2]);
  });
});
