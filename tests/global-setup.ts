/** Builds the bundled CLI once so tests run what users run. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export default function setup(): void {
  if (existsSync('scripts/build.mjs')) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
