/**
 * Before any test: refuses a Node older than the one the project pins (package.json's `node` package, which
 * npm scripts put first on PATH), builds the bundled CLI once so tests run what users run, and keeps every
 * test away from the default port (tests/helpers/default-port-guard.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { guardDefaultPort } from './helpers/default-port-guard.js';

/** The oldest Node the bridge runs on (README "Development": Node-API 10 for better-sqlite3 13). */
const MIN_NODE: readonly [number, number] = [22, 14];

export default async function setup(): Promise<() => Promise<void>> {
  refuseOldNode();
  if (existsSync('scripts/build.mjs')) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  return guardDefaultPort();
}

/**
 * One line and exit 1, before any worker or bridge starts: under an older Node (a direct `vitest` call on the
 * system Node) tests fail for reasons that are not theirs, and half-started bridges are left running.
 */
function refuseOldNode(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return;
  process.stderr.write(
    `contactor tests need Node ${MIN_NODE.join('.')} or newer, this is ${process.version} (${process.execPath}); run them with \`npm test\`, which uses the pinned Node\n`,
  );
  process.exit(1);
}
