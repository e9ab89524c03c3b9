/**
 * Wine lane only: installing Wine, the pinned Windows packages and the private Wine prefix. Every step is
 * idempotent, so a warm run only checks what is already there.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const LANE = import.meta.dirname;
export const ROOT = path.resolve(LANE, '..', '..');
export const CACHE = process.env.CONTACTOR_WINE_CACHE ?? path.join(homedir(), '.cache', 'contactor-windows-lane');
export const PREFIX = path.join(CACHE, 'prefix');
export const WINE = '/usr/lib/wine/wine64';
const WINESERVER = '/usr/lib/wine/wineserver';
const MINGW = 'x86_64-w64-mingw32-gcc';
const APT_PACKAGES = ['wine64', 'gcc-mingw-w64-x86-64-win32'];

/** The environment every Wine process of the lane gets: the private prefix, no debug noise, no Mono/Gecko. */
export function wineEnv(extra = {}) {
  return {
    ...process.env,
    WINEPREFIX: PREFIX,
    WINEDEBUG: '-all',
    // mscoree/mshtml off: no Mono/Gecko install dialogs. taskkill.exe=n: the stand-in in system32 wins.
    WINEDLLOVERRIDES: 'mscoree,mshtml=;taskkill.exe=n',
    ...extra,
  };
}

/** A Linux path as the Windows side sees it (Wine maps / to Z:). */
export const zPath = (p) => `Z:${path.resolve(p).replaceAll('/', '\\')}`;

function onPath(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

function run(program, args, options = {}) {
  const r = spawnSync(program, args, { stdio: 'inherit', ...options });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/** Installs Wine and MinGW from apt when missing. Returns a reason when that is impossible here. */
export function ensureAptTools() {
  if (existsSync(WINE) && onPath(MINGW)) return undefined;
  if (process.platform !== 'linux' || !onPath('apt-get'))
    return 'Wine is installed with apt-get, which this machine lacks';
  const asRoot = process.getuid?.() === 0 ? [] : onPath('sudo') ? ['sudo', '-n'] : undefined;
  if (!asRoot) return 'installing Wine needs root or password-less sudo';
  console.log(`windows lane: apt-get install ${APT_PACKAGES.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    run(asRoot[0] ?? 'apt-get', [...asRoot.slice(1), ...(asRoot.length ? ['apt-get'] : []), ...args], { env });
  if (apt(['update', '-qq']) !== 0) return 'apt-get update failed';
  if (apt(['install', '-y', '-qq', '--no-install-recommends', ...APT_PACKAGES]) !== 0) return 'apt-get install failed';
  return existsSync(WINE) && onPath(MINGW)
    ? undefined
    : `apt installed ${APT_PACKAGES.join(' ')} but ${WINE} is missing`;
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * `npm pack`s each pinned package into the cache, checks its sha256 against pins.json and unpacks it.
 * Returns the unpacked folder per package name. A wrong checksum always fails: it is never skipped.
 */
export function fetchPinnedPackages() {
  const { packages } = JSON.parse(readFileSync(path.join(LANE, 'pins.json'), 'utf8'));
  const downloads = path.join(CACHE, 'dl');
  mkdirSync(downloads, { recursive: true });
  const unpacked = {};
  for (const { name, version, sha256: want } of packages) {
    const tarball = path.join(downloads, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
    if (!existsSync(tarball)) {
      console.log(`windows lane: npm pack ${name}@${version}`);
      const status = run('npm', ['pack', '--silent', `${name}@${version}`, '--pack-destination', downloads], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (status !== 0 || !existsSync(tarball)) throw new Error(`npm pack ${name}@${version} failed`);
    }
    const got = sha256(tarball);
    if (got !== want) {
      rmSync(tarball);
      throw new Error(`${name}@${version}: sha256 ${got} does not match ${want} in tests/windows-lane/pins.json`);
    }
    const dir = path.join(CACHE, 'pkg', `${name.replace('/', '+')}@${version}`);
    if (!existsSync(path.join(dir, 'package.json'))) {
      mkdirSync(dir, { recursive: true });
      if (run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']) !== 0)
        throw new Error(`unpacking ${tarball} failed`);
    }
    unpacked[name] = dir;
  }
  return unpacked;
}

/** Puts the win32 builds of vitest's native tools next to the Linux ones, where their loaders look for them. */
export function installNativeTools(unpacked) {
  for (const name of ['@esbuild/win32-x64', '@rolldown/binding-win32-x64-msvc']) {
    const target = path.join(ROOT, 'node_modules', name);
    const want = JSON.parse(readFileSync(path.join(unpacked[name], 'package.json'), 'utf8')).version;
    const have = existsSync(path.join(target, 'package.json'))
      ? JSON.parse(readFileSync(path.join(target, 'package.json'), 'utf8')).version
      : undefined;
    if (have === want) continue;
    rmSync(target, { recursive: true, force: true });
    cpSync(unpacked[name], target, { recursive: true });
  }
}

/** Builds a Wine-only stand-in from its C source when the source is newer than the binary. */
function compile(source, output, args) {
  const src = path.join(LANE, 'wine-only', source);
  if (existsSync(output) && statSync(output).mtimeMs >= statSync(src).mtimeMs) return;
  if (run(MINGW, ['-O2', '-o', output, src, ...args]) !== 0) throw new Error(`compiling ${source} failed`);
}

/** Creates the private prefix once, then (re)places the stand-ins in its system32. Returns where they are built. */
export function ensurePrefix() {
  if (!existsSync(path.join(PREFIX, 'system.reg'))) {
    console.log(`windows lane: creating the Wine prefix ${PREFIX}`);
    mkdirSync(PREFIX, { recursive: true });
    const log = path.join(CACHE, 'wineboot.log');
    const fd = openSync(log, 'w');
    const status = spawnSync(WINE, ['wineboot', '--init'], { env: wineEnv(), stdio: ['ignore', fd, fd] }).status;
    closeSync(fd);
    // Node 22 refuses anything older than Windows 8.1; Wine 8's new prefixes report Windows 7.
    const version = spawnSync(WINE, ['winecfg', '/v', 'win10'], { env: wineEnv(), stdio: 'ignore' }).status;
    spawnSync(WINESERVER, ['-w'], { env: wineEnv(), stdio: 'ignore' });
    if (status !== 0 || version !== 0) rmSync(path.join(PREFIX, 'system.reg'), { force: true });
    if (status !== 0 || !existsSync(path.join(PREFIX, 'system.reg'))) {
      rmSync(PREFIX, { recursive: true, force: true });
      throw new Error(`wineboot failed (exit ${status}); see ${log}`);
    }
  }
  const built = path.join(CACHE, 'built');
  mkdirSync(built, { recursive: true });
  compile('process-prng.c', path.join(built, 'bcryptprimitives.dll'), ['-shared', '-ladvapi32']);
  compile('taskkill.c', path.join(built, 'taskkill.exe'), []);
  // Used by tests/windows-lane/launcher.test.ts from CONTACTOR_LANE_TOOLS (run.mjs), not placed in system32.
  compile('argv-echo.c', path.join(built, 'argv-echo.exe'), ['-municode', '-mwindows']);
  compile('console-ctrl.c', path.join(built, 'console-ctrl.exe'), ['-municode']);
  compile('gui-node.c', path.join(built, 'gui-node.exe'), ['-municode', '-mwindows']);
  const system32 = path.join(PREFIX, 'drive_c', 'windows', 'system32');
  copyFileSync(path.join(built, 'bcryptprimitives.dll'), path.join(system32, 'bcryptprimitives.dll'));
  copyFileSync(path.join(built, 'taskkill.exe'), path.join(system32, 'taskkill.exe'));
  return built;
}

/** Ends every process still running in the private prefix (a leak must not outlive the lane). */
export function stopWineServer() {
  spawnSync(WINESERVER, ['-k'], { env: wineEnv(), stdio: 'ignore' });
}
