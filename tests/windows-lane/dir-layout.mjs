/**
 * Wine lane only: the `electron-builder --win --x64 --dir` layout the installer would unpack, built on Linux as
 * tests/packaging/dir-build.test.ts builds it (a stub PE as electron.exe, fuses and exe editing off), with the
 * Windows `node.exe` copied in as `Contactor.exe`. `contactor.cmd` sets ELECTRON_RUN_AS_NODE=1 and runs
 * `Contactor.exe contactor.cjs`; Electron in Node mode behaves as plain Node, which node.exe is.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildStubDirLayout, STUB_EXE } from '../packaging/stub-dir-build.ts';
import { CACHE } from './wine.mjs';

/** Builds the layout afresh (the bundles change between runs) and returns its win-unpacked folder. */
export async function prepareDirLayout(nodeExe) {
  const work = path.join(CACHE, 'layout');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (!existsSync(STUB_EXE)) throw new Error(`${STUB_EXE} is missing: run npm ci`);
  const unpacked = await buildStubDirLayout(work, { timeoutMs: 300_000 });
  copyFileSync(nodeExe, path.join(unpacked, 'Contactor.exe'));
  return unpacked;
}
