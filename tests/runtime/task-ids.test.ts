import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../main/runtime/task-ids.js';

describe('timeOrderedId', () => {
  it('makes RFC 9562 version 7 UUIDs carrying the current time', () => {
    const before = Date.now();
    const id = timeOrderedId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('sorts in the order the ids were made, even many within one millisecond, and never repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
