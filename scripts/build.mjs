// Builds the bundles: `npm run build`, and tests/global-setup.ts before the tests. One entry per target;
// the desktop app adds its main/preload/renderer targets to TARGETS.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The version, baked in: the packaged CLI (resources/cli/contactor.cjs) has no package.json above it, and must
 * not read whatever package.json lies above the folder it is run from (main/cli/version.ts, wiring.ts).
 */
const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const VERSION_DEFINE = { __CONTACTOR_VERSION__: JSON.stringify(VERSION) };

/** esbuild leaves `import.meta` empty in CommonJS; the CLI and wiring use import.meta.url to find their files. */
const IMPORT_META_URL_SHIM = {
  define: { 'import.meta.url': '__contactor_import_meta_url', ...VERSION_DEFINE },
  banner: { js: "const __contactor_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
};

/**
 * `contactor top`'s screen (main/cli/top/screen.tsx, Ink + React) uses top-level await (Ink's reconciler, yoga's
 * WebAssembly loader), which a CommonJS bundle cannot hold. The desktop CLI (CommonJS) therefore imports it from
 * top.mjs, an ES module built beside it (the target below), with a real `import()` that Node runs from CommonJS.
 */
const TOP_SCREEN_BESIDE = {
  name: 'top-screen-beside',
  setup(b) {
    b.onResolve({ filter: /[\\/]top[\\/]screen\.js$/ }, () => ({ path: './top.mjs', external: true }));
  },
};
/** Ink loads React's devtools only when DEV=true and the package is installed; it is neither. */
const INK_EXTERNAL = ['react-devtools-core'];
/** In one file (no lazy chunk to keep that import in), the devtools are an empty module instead. */
const NO_DEVTOOLS = {
  name: 'no-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'no-devtools' }));
    b.onLoad({ filter: /.*/, namespace: 'no-devtools' }, () => ({ contents: 'export default {};' }));
  },
};

const TARGETS = [
  {
    // The repo's CLI (bin/contactor.js loads it). Split, so the verbs' lazy imports (`serve`'s bridge,
    // `doctor`/`probe`'s ACP client) stay lazy. Its dependencies are bundled in, as in the desktop build
    // below (only the native better-sqlite3 comes from node_modules): loading zod, yaml and commander file
    // by file from node_modules made `contactor agents` ~30% slower (`npm run bench -- --only=cli`).
    name: 'cli (repo)',
    entryPoints: { contactor: 'main/cli/index.ts' },
    outdir: 'out/cli',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    platform: 'node',
    format: 'esm',
    external: ['better-sqlite3', 'electron', ...INK_EXTERNAL],
    // Bundled CommonJS dependencies call require(), which an ES module does not have.
    banner: {
      js: "import { createRequire as __contactorCreateRequire } from 'node:module'; const require = __contactorCreateRequire(import.meta.url);",
    },
  },
  {
    // The desktop app's resources/cli/contactor.cjs, run by the app's executable in Node mode: self-contained
    // except the native better-sqlite3, which electron-builder.yml ships beside it in resources/cli/node_modules
    // (outside app.asar, so any Node finds it), and electron (never loaded by the CLI).
    name: 'cli (desktop resources)',
    entryPoints: ['main/cli/index.ts'],
    outfile: 'out/cli/contactor.cjs',
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3', 'electron'],
    plugins: [TOP_SCREEN_BESIDE],
    ...IMPORT_META_URL_SHIM,
  },
  {
    // `contactor top`'s screen for that CommonJS CLI (TOP_SCREEN_BESIDE), shipped beside it (electron-builder.yml).
    name: 'cli top screen (desktop resources)',
    entryPoints: ['main/cli/top/screen.tsx'],
    outfile: 'out/cli/top.mjs',
    platform: 'node',
    format: 'esm',
    external: ['electron'],
    plugins: [NO_DEVTOOLS],
    banner: {
      js: "import { createRequire as __contactorCreateRequire } from 'node:module'; const require = __contactorCreateRequire(import.meta.url);",
    },
  },
  {
    // The desktop app's Electron main process (package.json `main`); node_modules stay in the app's asar.
    name: 'desktop main',
    entryPoints: ['main/shell/index.ts'],
    outfile: 'out/main/index.js',
    platform: 'node',
    format: 'esm',
    packages: 'external',
    external: ['electron'],
  },
  {
    // A sandboxed preload cannot load ES modules and may require only electron/events/timers/url: one CJS file.
    name: 'desktop preload',
    entryPoints: ['preload/index.ts'],
    outfile: 'out/preload/index.cjs',
    platform: 'node',
    format: 'cjs',
    external: ['electron'],
  },
  {
    // A classic script: `<script type="module">` is blocked under file:// (origin null) by the approval window's CSP.
    name: 'desktop renderer',
    entryPoints: ['renderer/app.ts'],
    outfile: 'out/renderer/app.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome130',
  },
  {
    name: 'activity preload',
    entryPoints: ['preload/activity.ts'],
    outfile: 'out/preload/activity.cjs',
    platform: 'node',
    format: 'cjs',
    external: ['electron'],
  },
  {
    name: 'activity renderer',
    entryPoints: ['renderer/activity.ts'],
    outfile: 'out/renderer/activity.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome130',
  },
];

/** Static files of the approval and activity windows, next to their scripts. */
const COPIES = [
  ['renderer/index.html', 'out/renderer/index.html'],
  ['renderer/theme.css', 'out/renderer/theme.css'],
  ['renderer/styles.css', 'out/renderer/styles.css'],
  ['renderer/activity.html', 'out/renderer/activity.html'],
  ['renderer/activity.css', 'out/renderer/activity.css'],
];

// Split chunks have hashed names: clear the old ones so a rebuild leaves only what the entry imports.
rmSync(path.join(ROOT, 'out', 'cli'), { recursive: true, force: true });

for (const { name, ...options } of TARGETS) {
  const started = Date.now();
  await build({
    absWorkingDir: ROOT,
    bundle: true,
    target: 'node22',
    sourcemap: 'linked',
    logLevel: 'warning',
    ...options,
    define: { ...VERSION_DEFINE, ...options.define },
  });
  console.log(`built ${name} → ${options.outfile ?? `${options.outdir}/`} (${Date.now() - started} ms)`);
}

for (const [from, to] of COPIES) {
  mkdirSync(path.dirname(path.join(ROOT, to)), { recursive: true });
  copyFileSync(path.join(ROOT, from), path.join(ROOT, to));
}
console.log(`copied ${COPIES.length} renderer files → out/renderer/`);

/**
 * The Windows CLI launcher, resources/cli/contactor.exe (build/launcher/contactor.c), compiled with MinGW-w64:
 * Debian's x86_64-w64-mingw32-gcc (apt gcc-mingw-w64-x86-64-win32, which the Windows lane installs), or a
 * MinGW gcc on Windows. Without a compiler the rest of the build stands and the launcher is skipped, unless
 * CONTACTOR_REQUIRE_LAUNCHER=1 (packaging: an installer without it would leave `contactor` off the PATH).
 */
function buildLauncher() {
  const compilers = process.platform === 'win32' ? ['x86_64-w64-mingw32-gcc', 'gcc'] : ['x86_64-w64-mingw32-gcc'];
  // Outside out/cli (cleared above), rebuilt only when its source changed: a compile takes seconds.
  const out = path.join(ROOT, 'out', 'launcher', 'contactor.exe');
  const source = path.join(ROOT, 'build/launcher/contactor.c');
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return;
  mkdirSync(path.dirname(out), { recursive: true });
  const args = ['-municode', '-O2', '-s', '-Wall', '-Werror', '-o', out, source];
  for (const cc of compilers) {
    const started = Date.now();
    const r = spawnSync(cc, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.error?.code === 'ENOENT') continue;
    if (r.status !== 0) throw new Error(`${cc} failed to build the launcher (exit ${r.status})`);
    console.log(`built windows launcher → out/launcher/contactor.exe (${Date.now() - started} ms, ${cc})`);
    return;
  }
  const message = `no MinGW-w64 compiler (${compilers.join(', ')}): out/launcher/contactor.exe not built`;
  if (process.env.CONTACTOR_REQUIRE_LAUNCHER === '1') throw new Error(message);
  console.log(`skipped windows launcher: ${message} (apt install gcc-mingw-w64-x86-64-win32)`);
}
buildLauncher();
