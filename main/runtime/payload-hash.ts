/**
 * Fingerprint of a send's payload, to tell a replay (same messageId, same payload) from a conflicting
 * reuse. 53-bit cyrb53 over a canonical JSON form (object keys sorted, undefined members left out):
 * collisions between two payloads that reuse one messageId are not a realistic risk, and it needs no I/O
 * module in the core.
 *
 * The canonical text is fed to the hash piece by piece as the value is walked, never built: the same
 * characters in the same order, so the same hash as hashing the whole text (hashes already stored with
 * tasks stay valid), without a string per member (docs/benchmark.md#the-store-per-blocking-send).
 */
export function payloadHash(value: unknown): string {
  const hash = new Cyrb53();
  hash.value(value);
  return hash.digest().toString(36);
}

/**
 * Own enumerable keys in UTF-16 code unit order (keys are unique). By insertion for the few keys a payload's
 * objects have: Array.prototype.sort allocates a work area per call, larger than the keys themselves.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j -= 1) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/** A string JSON.stringify would write other than as `"` + itself + `"`; lone surrogates included. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

class Cyrb53 {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  /** Feeds the canonical JSON text of `v`. */
  value(v: unknown): void {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string') this.string(v);
      else this.text(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      this.char(0x5b); // [
      for (let i = 0; i < v.length; i += 1) {
        if (i > 0) this.char(0x2c); // ,
        // A hole is left empty, as Array.prototype.map and join leave it.
        if (i in v) this.value(v[i]);
      }
      this.char(0x5d); // ]
    } else {
      const record = v as Record<string, unknown>;
      const keys = sortedKeys(record);
      this.char(0x7b); // {
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        if (!first) this.char(0x2c); // ,
        first = false;
        this.string(key);
        this.char(0x3a); // :
        this.value(member);
      }
      this.char(0x7d); // }
    }
  }

  digest(): number {
    let { h1, h2 } = this;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }

  /** A JSON string literal: quoted as it is when nothing in it needs escaping, else as JSON writes it. */
  private string(s: string): void {
    if (NEEDS_ESCAPE.test(s)) {
      this.text(JSON.stringify(s));
      return;
    }
    this.char(0x22); // "
    this.text(s);
    this.char(0x22);
  }

  private text(str: string): void {
    let { h1, h2 } = this;
    for (let i = 0; i < str.length; i += 1) {
      const ch = str.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  private char(ch: number): void {
    this.h1 = Math.imul(this.h1 ^ ch, 2654435761);
    this.h2 = Math.imul(this.h2 ^ ch, 1597334677);
  }
}
