/**
 * A real `electron-builder --win --x64 --dir` run, offline, against a stub Electron distribution made here:
 * a genuine PE with a version resource (Squirrel.exe from electron-winstaller) as electron.exe. Fuses are left
 * out (a stub has no fuse wire) and exe editing is off; everything else is the shipped config.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const STUB_EXE = path.join(ROOT, 'node_modules', 'electron-winstaller', 'vendor', 'Squirrel.exe');
const asar = require('@electron/asar') as { listPackage(archive: string, options: object): string[] };

describe.skipIf(!existsSync(STUB_EXE))('electron-builder --dir layout (stub Electron)', () => {
  let tmp: string;
  let resources: string;

  beforeAll(async () => {
    for (const built of [
      'out/main/index.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'out/cli/contactor.cjs',
    ]) {
      if (!existsSync(path.join(ROOT, built)))
        throw new Error(`${built} is missing: run \`node scripts/build.mjs\` first`);
    }
    tmp = mkdtempSync(path.join(tmpdir(), 'contactor-pack-'));
    mkdirSync(path.join(tmp, 'dist'));
    copyFileSync(STUB_EXE, path.join(tmp, 'dist', 'electron.exe'));
    const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'));
    delete config.electronFuses;
    config.electronDist = path.join(tmp, 'dist');
    config.win.signAndEditExecutable = false;
    config.directories.output = path.join(tmp, 'release');
    writeFileSync(path.join(tmp, 'builder.json'), JSON.stringify(config));
    await promisify(execFile)(
      process.execPath,
      [
        require.resolve('electron-builder/cli.js'),
        '--win',
        '--x64',
        '--dir',
        '--config',
        path.join(tmp, 'builder.json'),
        '--projectDir',
        ROOT,
      ],
      { cwd: ROOT, timeout: 120_000, env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' } },
    );
    resources = path.join(tmp, 'release', 'win-unpacked', 'resources');
  }, 150_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('names the exe as the WSL wrapper expects', () => {
    expect(existsSync(path.join(tmp, 'release', 'win-unpacked', 'Contactor.exe'))).toBe(true);
  });

  it('packs the three bundles and package.json into app.asar, without source maps', () => {
    const files = asar
      .listPackage(path.join(resources, 'app.asar'), { isPack: false })
      .map((f) => f.replace(/\\/g, '/'));
    expect(files).toEqual(
      expect.arrayContaining([
        '/package.json',
        '/out/main/index.js',
        '/out/preload/index.cjs',
        '/out/renderer/app.js',
        '/out/renderer/index.html',
        '/out/renderer/styles.css',
      ]),
    );
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.some((f) => f.startsWith('/out/cli/'))).toBe(false);
    expect(files).toContain('/node_modules/koa/package.json');
  });

  it('unpacks only the win32-x64 better-sqlite3 binary next to the asar', () => {
    const prebuilds = path.join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'prebuilds');
    expect(existsSync(path.join(prebuilds, 'win32-x64.node'))).toBe(true);
    expect(existsSync(path.join(prebuilds, 'linux-x64.node'))).toBe(false);
    expect(existsSync(path.join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'deps'))).toBe(false);
  });

  it('ships the CLI, SKILL.md, the config example, the demo agent and the icons as plain files', () => {
    for (const file of [
      'cli/contactor', 'cli/contactor.cmd', 'cli/contactor.cjs', 'SKILL.md', 'config.example.yaml', 'agents/echo-agent.mjs',
      'icons/app.ico', 'icons/tray-idle.ico', 'icons/tray-working.ico', 'icons/tray-needs-you.ico', 'icons/tray-error.ico',
    ]) expect(existsSync(path.join(resources, file)), file).toBe(true); // prettier-ignore
  });
});
