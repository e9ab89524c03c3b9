/** The bench tools' command-line flags, each written `--name=value`. */

/** The value of `--<name>=…`, or undefined when it is not given. */
export function flag(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** A throughput tool's `--concurrency`, `--sends` and `--warmup` (positive integers); the usage line and exit 2 otherwise. */
export function throughputFlags(
  tool: string,
  defaults: { concurrency: number; sends: number; warmup: number },
): { concurrency: number; sends: number; warmup: number } {
  const count = (name: keyof typeof defaults): number => {
    const value = flag(name);
    return value === undefined ? defaults[name] : Number(value);
  };
  const counts = { concurrency: count('concurrency'), sends: count('sends'), warmup: count('warmup') };
  if (!Object.values(counts).every((n) => Number.isInteger(n) && n >= 1)) {
    console.error(`usage: npx tsx ${tool} [--concurrency=<n>] [--sends=<n>] [--warmup=<n>]`);
    process.exit(2);
  }
  return counts;
}
