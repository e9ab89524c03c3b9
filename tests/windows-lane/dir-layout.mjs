/**
 * Wine lane only: the `electron-builder --win --x64 --dir` layout the installer would unpack, built on Linux as
 * tests/packaging/dir-build.test.ts builds it (a stub PE as electron.exe, fuses and exe editing off), with the
 * Windows `node.exe` copied in as `Contactor.exe`. `contactor.cmd` sets ELECTRON_RUN_AS_NODE=1 and runs
 * `Contactor.exe contactor.cjs`; Electron in Node mode behaves as plain Node, which node.exe is.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { CACHE, ROOT } from './wine.mjs';

const require = createRequire(import.meta.url);
const STUB_EXE = path.join(ROOT, 'node_modules', 'electron-winstaller', 'vendor', 'Squirrel.exe');

/** Builds the layout afresh (the bundles change between runs) and returns its win-unpacked folder. */
export async function prepareDirLayout(nodeExe) {
  const work = path.join(CACHE, 'layout');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(path.join(work, 'dist'), { recursive: true });
  if (!existsSync(STUB_EXE)) throw new Error(`${STUB_EXE} is missing: run npm ci`);
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
    timeout: 300_000,
    env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' },
  });
  const unpacked = path.join(work, 'release', 'win-unpacked');
  copyFileSync(nodeExe, path.join(unpacked, 'Contactor.exe'));
  return unpacked;
}
