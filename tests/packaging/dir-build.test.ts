/**
 * A real `electron-builder --win --x64 --dir` run, offline, against a stub Electron distribution made here:
 * a genuine PE with a version resource (Squirrel.exe from electron-winstaller) as electron.exe. Fuses are left
 * out (a stub has no fuse wire) and exe editing is off; everything else is the shipped config.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, closedPort, runCli } from '../cli/run-cli.js';
import { buildStubDirLayout, ROOT, STUB_EXE } from './stub-dir-build.js';

const require = createRequire(import.meta.url);
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
    await buildStubDirLayout(tmp);
    resources = path.join(tmp, 'release', 'win-unpacked', 'resources');
    // A packaging run on a busy machine takes minutes: bounded by this hook alone, as signing.test.ts's.
  }, 300_000);

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
        '/out/renderer/theme.css',
        '/out/renderer/styles.css',
        '/out/renderer/activity.html',
        '/out/renderer/activity.css',
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

  it.skipIf(!existsSync(path.join(ROOT, 'out', 'launcher', 'contactor.exe')))(
    'ships the native CLI launcher beside the CLI, a console-subsystem PE (scripts/build.mjs built it)',
    () => {
      const exe = readFileSync(path.join(resources, 'cli', 'contactor.exe'));
      expect(exe.subarray(0, 2).toString('latin1')).toBe('MZ');
      const pe = exe.readUInt32LE(0x3c);
      expect(exe.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
      // IMAGE_OPTIONAL_HEADER64.Subsystem (offset 68 after the 24-byte file header): 3 = WINDOWS_CUI (console).
      expect(exe.readUInt16LE(pe + 24 + 68)).toBe(3);
    },
  );

  it('ships better-sqlite3 for the CLI outside the asar: runtime files and the win32-x64 binary only', () => {
    const pkg = path.join(resources, 'cli', 'node_modules', 'better-sqlite3');
    for (const file of ['package.json', 'lib/index.js', 'lib/database.js', 'prebuilds/win32-x64.node'])
      expect(existsSync(path.join(pkg, file)), file).toBe(true);
    for (const absent of ['prebuilds/linux-x64.node', 'deps', 'src', 'build', 'binding.gyp'])
      expect(existsSync(path.join(pkg, absent)), absent).toBe(false);
  });

  /**
   * The packaged app's CLI, the Linux half: the same layout with the linux-x64 prebuild dropped in, run by this Node 24
   * from a folder outside the repo. Node's resolution from resources/cli/contactor.cjs can only reach
   * resources/cli/node_modules there. (The Windows lane runs the win32 binary with the Windows Node.)
   */
  it('the packaged CLI prints the package version and serves + sends from a folder outside the repo', async () => {
    const pkg = path.join(resources, 'cli', 'node_modules', 'better-sqlite3');
    copyFileSync(
      path.join(ROOT, 'node_modules', 'better-sqlite3', 'prebuilds', 'linux-x64.node'),
      path.join(pkg, 'prebuilds', 'linux-x64.node'),
    );
    const cli = path.join(resources, 'cli', 'contactor.cjs');
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'contactor-elsewhere-'));
    try {
      const env = cleanEnv(elsewhere);
      const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
        .version;
      const shown = await runCli(['--version'], { entry: cli, env, cwd: elsewhere });
      expect(shown.stdout.trim()).toBe(version);

      const config = path.join(elsewhere, 'config.yaml');
      // The demo agent as the default config names it: resolved from the packaged resources/ folder.
      writeFileSync(
        config,
        `port: ${await closedPort()}\ndata_dir: ${path.join(elsewhere, 'data')}\nagents:\n` +
          `  echo: { kind: subprocess_cli, command: ['\${CONTACTOR_NODE}', '\${CONTACTOR_RESOURCES}/agents/echo-agent.mjs'] }\n`,
      );
      const up = await runCli(['up', '-c', config, '--json'], { entry: cli, env, cwd: elsewhere });
      expect(up.stderr).toBe('');
      expect(up.code).toBe(0);
      try {
        const sent = await runCli(['send', 'echo', 'from the package', '-c', config], {
          entry: cli,
          env,
          cwd: elsewhere,
        });
        expect(sent.stdout).toBe('echo: from the package\n');
        const status = await runCli(['status', '-c', config, '--json'], { entry: cli, env, cwd: elsewhere });
        expect(JSON.stringify(status.json())).toContain(`"version":"${version}"`);
      } finally {
        await runCli(['down', '-c', config], { entry: cli, env, cwd: elsewhere });
      }
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
