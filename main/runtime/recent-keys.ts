/**
 * A set that remembers only its `max` most recently used keys: what the bridge remembers per conversation
 * or per tool call must not grow for the life of a process that runs for weeks (docs/benchmark.md#what-the-bridge-remembers).
 * Map order is recency order: `add` and a `has` that finds the key move it to the end; past `max` the
 * first (least recently used) goes.
 */
export class RecentKeys {
  private readonly keys = new Map<string, true>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`RecentKeys needs a max of at least 1, not ${max}`);
  }

  /** Whether `key` is remembered; a hit counts as a use. */
  has(key: string): boolean {
    if (!this.keys.has(key)) return false;
    this.keys.delete(key);
    this.keys.set(key, true);
    return true;
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.set(key, true);
    if (this.keys.size > this.max) this.keys.delete(this.keys.keys().next().value as string);
  }

  get size(): number {
    return this.keys.size;
  }
}

/** The same recency rule for values: at most `max` entries, the least recently used goes first. */
export class RecentMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`RecentMap needs a max of at least 1, not ${max}`);
  }

  /** The value of `key`, if kept; a hit counts as a use. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
