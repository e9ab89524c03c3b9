/**
 * A headless bridge exactly as `contactor serve` builds it: createBridge on a config file, then start.
 * Argv: <configPath>. Prints `{ready, port, token}` once listening; stops cleanly on SIGTERM.
 *
 * Started as bin/contactor.js starts the CLI (its `start`): Node's compile cache on, then the bridge's
 * code imported — so start-up is measured as `contactor up` pays it, not as a first-ever run.
 */
import { readFileSync } from 'node:fs';
import module from 'node:module';

module.enableCompileCache?.();
const { createBridge } = await import('../../main/wiring/wiring.js');

const configPath = process.argv[2];
if (!configPath) throw new Error('usage: bridge-serve <config.yaml>');
const bridge = await createBridge({ configPath, env: { ...process.env, CONTACTOR_CONFIG: undefined } });
await bridge.start();
process.stdout.write(
  `${JSON.stringify({ ready: true, port: Number(new URL(bridge.url).port), token: bridge.token })}\n`,
);
process.on('SIGTERM', () => void bridge.stop().then(() => process.exit(0)));
// The soak section's probe (bench/sections/soak.ts): on SIGUSR2, a full GC (with --expose-gc), then the
// process's memory as one JSON line. Nothing else listens for the signal.
const threadCount = (): number | undefined => {
  try {
    return Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
};
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.stdout.write(`${JSON.stringify({ memory: process.memoryUsage(), threads: threadCount() })}\n`);
});
