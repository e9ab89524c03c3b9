import { describe, expect, it } from 'vitest';
import { payloadHash } from '../../main/runtime/payload-hash.js';

describe('payloadHash', () => {
  // A replay is told from a conflicting reuse by comparing this hash with the one stored when the task was
  // made, possibly by an earlier version: the canonical form may never change. These values were computed
  // by the first implementation (entries sorted with a comparator, joined by templates).
  it('gives the hashes tasks were stored with: key order, undefined members, nesting, escapes', () => {
    const samples: unknown[] = [
      {
        message: {
          kind: 'message',
          messageId: 'a',
          role: 'user',
          parts: [{ kind: 'text', text: 'hé "x"\n' }],
          metadata: { z: 1, a: [1, null, { b: undefined, c: true }], é: 2, B: 3 },
        },
      },
      [1, 'two', null, [], {}],
      'str',
      42,
      null,
      { undefinedOnly: undefined },
      { nested: { deep: { deeper: [1.5, -0, 1e21] } } },
    ];
    expect(samples.map((s) => payloadHash(s))).toEqual([
      '20isl0y8o5m',
      '13ie47ozy0h',
      '19km4k3es9c',
      '1dz58yaqlv3',
      '1omwfhr5hyy',
      '24xpth6jso7',
      '1f77g2m0txi',
    ]);
  });

  it('does not depend on the order of keys, past the few an in-place sort takes', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${(i * 17) % 40}`);
    const forward = Object.fromEntries(keys.map((k) => [k, k.length]));
    const backward = Object.fromEntries([...keys].reverse().map((k) => [k, k.length]));
    expect(payloadHash(forward)).toBe(payloadHash(backward));
    expect(payloadHash({ b: 1, a: 2 })).toBe(payloadHash({ a: 2, b: 1 }));
    expect(payloadHash({ b: 1, a: 2 })).not.toBe(payloadHash({ a: 1, b: 2 }));
  });
});
