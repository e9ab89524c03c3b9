/**
 * A real `electron-builder --win --x64 --dir` run, offline, against a stub Electron distribution: a genuine PE
 * with a version resource (Squirrel.exe from electron-winstaller) as electron.exe. Fuses are left out (a stub
 * has no fuse wire) and exe editing is off; everything else is the shipped electron-builder.yml. Shared by
 * tests/packaging/dir-build.test.ts and the Windows lane (tests/windows-lane/dir-layout.mjs).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const STUB_EXE = path.join(ROOT, 'node_modules', 'electron-winstaller', 'vendor', 'Squirrel.exe');

/** Builds into `work` (which must exist and be empty) and returns the `win-unpacked` folder. */
export async function buildStubDirLayout(work: string, { timeoutMs = 120_000 } = {}): Promise<string> {
  mkdirSync(path.join(work, 'dist'), { recursive: true });
  copyFileSync(STUB_EXE, path.join(work, 'dist', 'electron.exe'));
  const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'));
  delete config.electronFuses;
  config.electronDist = path.join(work, 'dist');
  config.win.signAndEditExecutable = false;
  config.directories.output = path.join(work, 'release');
  writeFileSync(path.join(work, 'builder.json'), JSON.stringify(config));
  const args = ['--win', '--x64', '--dir', '--config', path.join(work, 'builder.json'), '--projectDir', ROOT];
  await promisify(execFile)(process.execPath, [require.resolve('electron-builder/cli.js'), ...args], {
    cwd: ROOT,
    timeout: timeoutMs,
    env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' },
  });
  return path.join(work, 'release', 'win-unpacked');
}
