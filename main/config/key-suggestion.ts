/**
 * A required key that is missing next to an unknown one is usually a typo (`comand:` for `command:`): name
 * the unknown key, where it is, and the key it most likely meant. Edit distance is a dozen lines here; no
 * dependency of the project offers one.
 */

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The unknown key that most likely meant `wanted`: the closest one, when it is close enough to be a typo
 * (a third of the key's length, at least 2 edits; letter case is ignored).
 */
export function likelyTypo(wanted: string, unknown: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const key of unknown) {
    const distance = editDistance(wanted.toLowerCase(), key.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}
