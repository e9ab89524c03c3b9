/**
 * Node flags for a headless bridge process. V8 lets the young generation grow to 16 MB per semi-space,
 * and loading the modules at startup touches all of it, so an idle bridge kept ~8 MB it never needed.
 * Capped at 4 MB it stays under 100 MB resident, with no throughput change the benchmark can see
 * (docs/benchmark.md). `npm run serve` passes the same flag (package.json).
 */
export const HEADLESS_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/** The flags for `execPath`: none for Electron's binary in Node mode, which takes V8 flags another way. */
export function headlessNodeFlags(versions: { electron?: string } = process.versions): string[] {
  return versions.electron ? [] : [...HEADLESS_NODE_FLAGS];
}
