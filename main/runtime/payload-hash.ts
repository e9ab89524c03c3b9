/**
 * Fingerprint of a send's payload, to tell a replay (same messageId, same payload) from a conflicting
 * reuse. 53-bit cyrb53 over a canonical JSON form: collisions between two payloads that reuse one
 * messageId are not a realistic risk, and it needs no I/O module in the core.
 */
export function payloadHash(value: unknown): string {
  return cyrb53(canonicalJson(value)).toString(36);
}

/**
 * JSON with every object's keys in code-unit order and undefined members left out. Built by appending to one
 * string (no entry arrays, no per-member template): it runs on every send's payload. The text must stay
 * exactly what it is: the stored hash of a task made by an earlier version is compared with it on a replay.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = sortedKeys(object);
  let out = '{';
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/**
 * The object's keys in UTF-16 code-unit order (the order the hash has always used, the default sort's).
 * A message has a handful of keys: sorted in place by insertion, which allocates nothing, where V8's sort
 * copies them into a work array first.
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j -= 1) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

function cyrb53(str: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < str.length; i += 1) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
