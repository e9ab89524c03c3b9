/** Where the app's own files are and which version it is, in the repo, the unpacked app and the bundles. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The repo (or unpacked app) root: wherever package.json sits above this module. */
export function packageRoot(): string {
  for (let dir = HERE; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** Set by scripts/build.mjs in the bundles (the packaged CLI has no package.json above it). */
declare const __CONTACTOR_VERSION__: string | undefined;

export function packageVersion(root: string): string {
  if (typeof __CONTACTOR_VERSION__ === 'string') return __CONTACTOR_VERSION__;
  return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
