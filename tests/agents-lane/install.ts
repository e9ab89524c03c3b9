/**
 * The pinned agents (pinned/package.json at exact versions, pinned/package-lock.json with each tarball's
 * integrity) installed into a cache folder outside the repo, once per lock file: a second run with the
 * same lock reuses it. Install scripts stay off (the agents run without them). `npm install` with the lock
 * rather than `npm ci`: npm 11 writes a lock without the other platforms' optional binaries of
 * opencode-ai, which `npm ci` then calls out of sync; install keeps every locked version and integrity.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const PINNED = path.join(import.meta.dirname, 'pinned');
const LOCK = path.join(PINNED, 'package-lock.json');

export const CACHE = process.env.CONTACTOR_AGENTS_CACHE ?? path.join(homedir(), '.cache', 'contactor-agents-lane');
export const AGENTS_BIN = path.join(CACHE, 'node_modules', '.bin');

/** Installs the pinned agents unless this lock is already installed; throws with npm's output when npm fails. */
export function installPinnedAgents(): { reused: boolean; versions: Record<string, string> } {
  const lock = readFileSync(LOCK);
  const stamp = createHash('sha256').update(lock).digest('hex');
  const stampFile = path.join(CACHE, '.lock-sha256');
  const reused = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
  if (!reused) {
    mkdirSync(CACHE, { recursive: true });
    copyFileSync(path.join(PINNED, 'package.json'), path.join(CACHE, 'package.json'));
    copyFileSync(LOCK, path.join(CACHE, 'package-lock.json'));
    const npm = spawnSync('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: CACHE,
      encoding: 'utf8',
      shell: process.platform === 'win32',
    });
    if (npm.status !== 0) throw new Error(`npm install of the pinned agents failed:\n${npm.stdout}\n${npm.stderr}`);
    writeFileSync(stampFile, stamp);
  }
  const pinned = JSON.parse(readFileSync(path.join(PINNED, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return { reused, versions: pinned.dependencies };
}
