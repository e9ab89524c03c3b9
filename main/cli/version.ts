/** This CLI's version (package.json beside it), for `clientInfo` in the probes' `initialize`. */
import { readFileSync } from 'node:fs';
import { findUpward } from './install-paths.js';

/** Set by scripts/build.mjs in the bundles; undefined when running from the TypeScript source. */
declare const __CONTACTOR_VERSION__: string | undefined;

export function cliVersion(): string {
  if (typeof __CONTACTOR_VERSION__ === 'string') return __CONTACTOR_VERSION__;
  try {
    const file = findUpward('package.json');
    return file ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0') : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
