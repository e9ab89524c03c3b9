/**
 * `npm ci` must work with a plain npm configuration and no compiler. npm 11 decides per
 * package from package.json `allowScripts` (npm docs, commands/npm-install-scripts.md: "Dependency install
 * scripts are blocked by default ... for any dependency that does not have a matching entry"); a package
 * with a binding.gyp and no install/preinstall script gets an implicit `node-gyp rebuild` (npm docs,
 * configuring-npm/package-json.md: "If there is a `binding.gyp` file in the root of your package and you
 * have not defined an `install` or `preinstall` script, npm will default the `install` command to compile
 * using node-gyp").
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/bridge.js';

interface LockEntry {
  version?: string;
  hasInstallScript?: boolean;
}

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Every installed package npm would run an install-time script for. */
function packagesWithInstallScripts(): string[] {
  const names: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where.startsWith('node_modules/')) continue;
    const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const dir = path.join(REPO_ROOT, where);
    const scripts = existsSync(path.join(dir, 'binding.gyp'))
      ? ((JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> })
          .scripts ?? {})
      : undefined;
    const implicitGyp = scripts !== undefined && !scripts.install && !scripts.preinstall;
    if (entry.hasInstallScript || implicitGyp) names.push(name);
  }
  return [...new Set(names)].sort();
}

/** An allowScripts key is a name, or name@version (npm install-scripts approve writes pinned entries). */
function decisionFor(name: string): boolean | undefined {
  for (const [key, allowed] of Object.entries(pkg.allowScripts ?? {})) {
    const keyName = key.startsWith('@') ? '@' + key.slice(1).split('@')[0]! : key.split('@')[0]!;
    if (keyName === name) return allowed;
  }
  return undefined;
}

describe('install scripts (npm allowScripts)', () => {
  it('every package with an install script has an explicit decision in package.json', () => {
    const found = packagesWithInstallScripts();
    expect(found).toContain('better-sqlite3');
    expect(found.filter((name) => decisionFor(name) === undefined)).toEqual([]);
  });

  it("better-sqlite3's node-gyp rebuild is denied: it ships a prebuilt binary for this platform", () => {
    expect(decisionFor('better-sqlite3')).toBe(false);
    // lib/<platform>-<arch>.js requires ../prebuilds/<platform>-<arch>.node (better-sqlite3 13's loader).
    const target = `${process.platform}-${process.arch}`;
    expect(existsSync(path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'prebuilds', `${target}.node`))).toBe(
      true,
    );
  });

  it("the pinned node package's preinstall (it links Node 24 into node_modules/.bin) is allowed", () => {
    expect(decisionFor('node')).toBe(true);
    expect(process.versions.node.split('.')[0]).toBe('24');
  });

  it('esbuild without its postinstall still finds its platform binary (the optional @esbuild/* package)', async () => {
    expect(decisionFor('esbuild')).toBe(false);
    const esbuild = await import('esbuild');
    const out = await esbuild.transform('const a: number = 1', { loader: 'ts' });
    expect(out.code.trim()).toBe('const a = 1;');
  });
});
