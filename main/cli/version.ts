/** This CLI's version (package.json beside it), for `clientInfo` in the probes' `initialize`. */
import { readFileSync } from 'node:fs';
import { findUpward } from './install-paths.js';

export function cliVersion(): string {
  try {
    const file = findUpward('package.json');
    return file ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0') : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
