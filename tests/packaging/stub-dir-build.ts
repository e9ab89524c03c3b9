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

/** electron-builder.yml as parsed: only `win` is reached into here. */
export interface BuilderConfig {
  win: Record<string, unknown>;
  [key: string]: unknown;
}

export interface StubBuildOptions {
  /** Kills the build after this long; 0 (the default): only the caller's own hook timeout bounds it. */
  timeoutMs?: number;
  /**
   * Leave exe editing (and so signing: WinPackager.signApp and createTransformerForExtraFiles skip both when
   * `signAndEditExecutable` is false) on. The stub's version resource takes the edit; fuses stay out.
   */
  editExecutable?: boolean;
  /** Adjusts the parsed config before the build (e.g. a `win.signtoolOptions.sign` hook). */
  configure?: (config: BuilderConfig) => void;
  /** Replaces these variables in the build's environment; `undefined` removes one. */
  env?: Record<string, string | undefined>;
}

/** Builds into `work` (which must exist and be empty) and returns the `win-unpacked` folder. */
export async function buildStubDirLayout(work: string, opts: StubBuildOptions = {}): Promise<string> {
  return (await buildStubDirLayoutLogged(work, opts)).unpacked;
}

/** The same, with electron-builder's log (stdout and stderr). */
export async function buildStubDirLayoutLogged(
  work: string,
  { timeoutMs = 0, editExecutable = false, configure, env = {} }: StubBuildOptions = {},
): Promise<{ unpacked: string; log: string }> {
  mkdirSync(path.join(work, 'dist'), { recursive: true });
  copyFileSync(STUB_EXE, path.join(work, 'dist', 'electron.exe'));
  const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig & {
    directories: Record<string, unknown>;
  };
  delete config.electronFuses;
  config.electronDist = path.join(work, 'dist');
  if (!editExecutable) config.win.signAndEditExecutable = false;
  config.directories.output = path.join(work, 'release');
  configure?.(config);
  writeFileSync(path.join(work, 'builder.json'), JSON.stringify(config));
  const args = ['--win', '--x64', '--dir', '--config', path.join(work, 'builder.json'), '--projectDir', ROOT];
  const buildEnv: NodeJS.ProcessEnv = { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete buildEnv[k];
    else buildEnv[k] = v;
  }
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [require.resolve('electron-builder/cli.js'), ...args],
    { cwd: ROOT, timeout: timeoutMs, env: buildEnv, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: Error & { stdout?: string; stderr?: string; killed?: boolean; signal?: string }) => {
    // execFile's own message is the command line: what electron-builder said is the cause.
    const said = `${err.stdout ?? ''}\n${err.stderr ?? ''}`.trim().slice(-4000);
    throw new Error(`electron-builder --dir failed${err.killed ? ` (killed: ${err.signal})` : ''}: ${said}`, {
      cause: err,
    });
  });
  return { unpacked: path.join(work, 'release', 'win-unpacked'), log: `${stdout}\n${stderr}` };
}
