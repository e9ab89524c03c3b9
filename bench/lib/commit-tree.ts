/**
 * Another commit's tree, for harnesses that measure two versions side by side (bench/ab.ts,
 * bench/chunk-latency.ts): exported once to <tmp>/contactor-ab/<commit>/ (outside the repository, so
 * neither tsc nor vitest finds it), node_modules linked in from this repository, its servers bundled as
 * the benchmark bundles them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleServers, REPO_ROOT } from './children.js';

export const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

/** The build folder of `commit`'s tree with `servers` (bench/servers/<name>.ts) bundled in it. */
export async function builtAt(commit: string, servers: string[]): Promise<string> {
  const tree = path.join(os.tmpdir(), 'contactor-ab', commit);
  const build = path.join(tree, 'build');
  if (!existsSync(path.join(tree, 'package.json'))) {
    rmSync(tree, { recursive: true, force: true });
    mkdirSync(tree, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${tree}"`], { cwd: REPO_ROOT });
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  }
  const missing = servers.filter((name) => !existsSync(path.join(build, `${name}.mjs`)));
  if (missing.length > 0) await bundleServers(missing, build, tree);
  return build;
}
