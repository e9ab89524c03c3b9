/**
 * Files the CLI ships beside it (SKILL.md, resources/). The CLI runs from the TS source (main/cli), the repo
 * bundle (out/cli) or the desktop app's resources/cli, so it looks upward from its own file for them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The first `relative` found in this module's folder or one above it. */
export function findUpward(relative: string, from = HERE): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export function resourcesDir(): string {
  const example = findUpward(path.join('resources', 'config.example.yaml'));
  return example ? path.dirname(example) : path.join(HERE, 'resources');
}

export function skillFile(): string | undefined {
  return findUpward('SKILL.md');
}

/**
 * The script to start this CLI again (for `up`): the entry that is running, or the repo launcher when
 * running from TypeScript source, which plain Node cannot load.
 */
export function cliEntry(argv1 = process.argv[1] ?? ''): string {
  if (argv1 && !/\.[cm]?ts$/.test(argv1)) return path.resolve(argv1);
  return findUpward(path.join('bin', 'contactor.js')) ?? path.resolve(argv1);
}
