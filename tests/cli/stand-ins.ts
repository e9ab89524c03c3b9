/**
 * Stand-ins for the Windows programs the CLI's probes run (wsl.exe, cmd.exe, where.exe, and WSL's wslpath),
 * copied executable into a temp bin dir that a test puts on PATH. Behaviour comes from FAKE_* variables
 * (see each script under tests/fixtures/cli-probe/ and tests/fixtures/wsl/wslpath.js).
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/bridge.js';

export const PROBE_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli-probe');
export const PROBE_AGENT = path.join(PROBE_FIXTURES, 'probe-agent.mjs');
export const FAKE_ACP_AGENT = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');

const SCRIPTS: Record<string, string> = {
  'wsl.exe': path.join(PROBE_FIXTURES, 'wsl-exe.js'),
  'cmd.exe': path.join(PROBE_FIXTURES, 'cmd-exe.js'),
  'where.exe': path.join(PROBE_FIXTURES, 'where-exe.js'),
  wslpath: path.join(REPO_ROOT, 'tests', 'fixtures', 'wsl', 'wslpath.js'),
};

export interface StandIns {
  dir: string;
  /** A folder with only the named stand-ins, for PATH (the Node running the tests comes after it). */
  bin(...programs: (keyof typeof SCRIPTS)[]): string;
  /** PATH = that bin + the test Node's folder + the system folders (sh, for the WSL stand-in). */
  path(...programs: (keyof typeof SCRIPTS)[]): string;
  cleanup(): void;
}

export function makeStandIns(): StandIns {
  const dir = mkdtempSync(path.join(tmpdir(), 'contactor-standins-'));
  let n = 0;
  const bin = (...programs: string[]) => {
    const folder = path.join(dir, `bin-${(n += 1)}`);
    mkdirSync(folder);
    for (const p of programs) {
      copyFileSync(SCRIPTS[p]!, path.join(folder, p));
      chmodSync(path.join(folder, p), 0o755);
    }
    return folder;
  };
  return {
    dir,
    bin,
    path: (...programs) => [bin(...programs), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An executable file (a program to be found), with `body` as its script. */
export function executable(file: string, body = '#!/bin/sh\nexit 0\n'): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body);
  chmodSync(file, 0o755);
  return file;
}
