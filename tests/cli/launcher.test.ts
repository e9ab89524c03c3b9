/**
 * bin/contactor.js under a Node older than 22.14: it re-runs itself on the pinned Node from node_modules
 * (forwarding the exit code), or, with none, says what it needs and exits 2 — never a crash. Needs an
 * old Node on this machine (the system Node 20 here); skipped where there is none.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/bridge.js';
import { CLI, cleanEnv, closedPort, findOldNode } from './run-cli.js';

const oldNode = findOldNode();

describe.skipIf(!oldNode)('bin/contactor.js on an old Node', () => {
  it('re-runs itself on the pinned Node and forwards the exit code', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'contactor-launch-'));
    try {
      const version = spawnSync(oldNode!, [CLI, '--version'], { encoding: 'utf8', env: cleanEnv(home) });
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      expect(version.status).toBe(0);
      const env = cleanEnv(home, { CONTACTOR_URL: `http://127.0.0.1:${await closedPort()}` });
      const unreachable = spawnSync(oldNode!, [CLI, 'status'], { encoding: 'utf8', env });
      expect(unreachable.status).toBe(5);
      expect(unreachable.stderr).toContain('no bridge running');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('without a pinned Node, says which Node it needs and exits 2', () => {
    const pkg = mkdtempSync(path.join(tmpdir(), 'contactor-nopin-'));
    try {
      mkdirSync(path.join(pkg, 'bin'));
      copyFileSync(path.join(REPO_ROOT, 'bin', 'contactor.js'), path.join(pkg, 'bin', 'contactor.js'));
      copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(pkg, 'package.json'));
      const run = spawnSync(oldNode!, [path.join(pkg, 'bin', 'contactor.js'), 'agents'], {
        encoding: 'utf8',
        env: cleanEnv(pkg),
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/contactor needs Node ≥ 22\.14 \(found v\d+/);
      // --version needs no Node 24 and no CLI: answered from package.json, no relaunch (it is the fastest start).
      const version = spawnSync(oldNode!, [path.join(pkg, 'bin', 'contactor.js'), '--version'], {
        encoding: 'utf8',
        env: cleanEnv(pkg),
      });
      expect(version.stdout).toBe(
        `${(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`,
      );
      expect(version.status).toBe(0);
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  });
});

describe('bin/contactor.js in a fresh clone (no out/)', () => {
  it('runs the TypeScript source through tsx', () => {
    const clone = mkdtempSync(path.join(tmpdir(), 'contactor-clone-'));
    try {
      mkdirSync(path.join(clone, 'bin'));
      copyFileSync(path.join(REPO_ROOT, 'bin', 'contactor.js'), path.join(clone, 'bin', 'contactor.js'));
      for (const entry of ['package.json', 'node_modules', 'main', 'resources', 'SKILL.md'])
        symlinkSync(path.join(REPO_ROOT, entry), path.join(clone, entry));
      const run = spawnSync(process.execPath, [path.join(clone, 'bin', 'contactor.js'), 'config', 'path'], {
        encoding: 'utf8',
        env: cleanEnv(clone),
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain(path.join(clone, '.config', 'contactor', 'config.yaml'));
      expect(run.status).toBe(0);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
