/**
 * Nesting depth of JSON values (SECURITY.md#limits-at-a-glance-configyaml): metadata nested ~4,400 levels was stored
 * and served to every reader, and many JSON parsers overflow their stack long before that. Requests deeper than
 * MAX_JSON_DEPTH are refused at the edge; structured data taken from agents is cut at the same depth.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays/objects more than `max` levels (a scalar is depth 0). Iterative. */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  // Every request passes here: two plain stacks and the members read in place, so a walk allocates no
  // pair per value and no array of an object's values.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    if (Array.isArray(v)) {
      for (const child of v as unknown[]) {
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key in record) {
      // Own enumerable members only, as Object.values has them.
      if (!Object.hasOwn(record, key)) continue;
      const child = record[key];
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * How deep a value an agent reports may nest, as stored: the deepest place one is served (a data part in
 * a v1 `tasks/list` answer: response, result, tasks, task, artifacts, artifact, parts, part) sits 8 levels
 * down, so the whole answer stays within what a request may nest.
 */
export const AGENT_VALUE_DEPTH = MAX_JSON_DEPTH - 8;

export const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels: removed]`;

/** `value` with everything below `max` levels replaced by a marker string (the value itself if shallow). */
export function capDepth(value: unknown, max: number = MAX_JSON_DEPTH): unknown {
  if (!exceedsDepth(value, max)) return value;
  const cut = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (depth >= max) return TOO_DEEP;
    if (Array.isArray(v)) return v.map((c) => cut(c, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, c]) => [k, cut(c, depth + 1)]));
  };
  return cut(value, 0);
}
