import { describe, expect, it } from 'vitest';
import { payloadHash } from '../../main/runtime/payload-hash.js';

/**
 * The definition the stored hashes were made with (main/runtime/payload-hash.ts before it stopped building
 * the text): cyrb53 of the canonical JSON text, keys sorted, undefined members left out. A task's stored
 * hash is compared with a replay's, so the values must never change.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function cyrb53(str: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i += 1) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const send = {
  message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] },
};
const awkward = { b: 1, a: [true, null, 2.5, 'x"y\\z\n'], c: undefined, é: 'ü😀', z: { y: [[], {}] } };
const edges = ['\ud800 lone', 1e21, -0, NaN];

describe('payloadHash', () => {
  it('keeps the values hashes were stored with (made by the text-building version)', () => {
    expect([send, awkward, edges].map(payloadHash)).toEqual(['1pxc11ct0y8', 'klln06djix', '1za7doz70qo']);
  });

  it('equals cyrb53 of the canonical JSON text for escapes, unicode, key order, holes and undefined', () => {
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    const values: unknown[] = [
      send,
      awkward,
      edges,
      sparse,
      [undefined, () => 1, { f: () => 1, u: undefined }],
      { 'key "quoted"': { '\u0001': 'tab\there', Z: 'upper', a: 'lower', '10': 'digit', '9': 'digit' } },
      { nested: { deep: [{ x: [{ y: ['z', 0, false] }] }] } },
      'a string',
      42,
      null,
      { date: new Date(0) },
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i])),
      Object.fromEntries(['b', 'a', 'é', 'A', '_', '😀', 'aa', ''].map((k, i) => [k, i])),
    ];
    for (const value of values) expect(payloadHash(value)).toBe(cyrb53(canonicalJson(value)).toString(36));
  });

  it('tells payloads apart that differ in a value, a key or nesting', () => {
    const hashes = [{ a: 'x' }, { a: 'y' }, { b: 'x' }, { a: ['x'] }, ['a', 'x']].map(payloadHash);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

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

  // What runtime/send-intake.ts hashes for a send: the whole of every part, files included. A send that
  // reuses a messageId with the same text and another file is a conflict, never a replay of the first.
  it("hashes a file part whole: payloads that differ only in a file's bytes or uri, or in having one", () => {
    const text = { kind: 'text', text: 'summarize the attachment' };
    const send = (parts: unknown[]) => ({ agent: 'claude', parts, contextId: 'ctx-1', cwd: '/home/ana/project' });
    const file = (f: Record<string, string>) => ({ kind: 'file', file: { name: 'notes.txt', ...f } });
    const payloads = [
      send([text]),
      send([text, file({ mimeType: 'text/plain', bytes: 'Zmlyc3Q=' })]),
      send([text, file({ mimeType: 'text/plain', bytes: 'c2Vjb25k' })]),
      send([text, file({ uri: 'https://files.example/first.txt' })]),
      send([text, file({ uri: 'https://files.example/second.txt' })]),
    ];
    expect(payloads.map(payloadHash)).toEqual([
      'xkegblvuaf',
      '1d8zqbjnbm6',
      '1d5g6tala0m',
      '1q8kxr1zu98',
      'p1kiucgz6q',
    ]);
    for (const value of payloads) expect(payloadHash(value)).toBe(cyrb53(canonicalJson(value)).toString(36));
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
