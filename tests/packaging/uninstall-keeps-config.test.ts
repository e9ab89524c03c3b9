/**
 * An uninstall never deletes the user's config.yaml. The folders removed are read from the uninstaller's own
 * text, not listed here: every `RMDir /r` in electron-builder's templates/nsis/uninstaller.nsh (the install
 * folder on every uninstall and update; with `--delete-app-data`, or deleteAppDataOnUninstall, the
 * `$APPDATA\${APP_FILENAME}`, `${APP_PRODUCT_FILENAME}` and `${APP_PACKAGE_NAME}` folders) and in our
 * build/installer.nsh. The `${…}` names are computed by electron-builder's own functions from package.json and
 * electron-builder.yml (NsisTarget.js defines: targetUtil.getWindowsInstallationDirName,
 * getWindowsInstallationAppPackageName, AppInfo.productFilename via builder-util sanitizeFileName), $INSTDIR as
 * templates/nsis/multiUser.nsh setInstallModePerUser sets it. The deletions run, case-insensitively as on NTFS,
 * on a model Windows profile in a temp folder that holds every file of ours at its default place.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultConfigPath, defaultDataDir, legacyConfigPath } from '../../main/config/config.js';
import { userDataDir } from '../../main/shell/layout.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const TEMPLATES = path.join(ROOT, 'node_modules', 'app-builder-lib', 'templates', 'nsis');
const { getWindowsInstallationDirName, getWindowsInstallationAppPackageName } =
  require('app-builder-lib/out/targets/targetUtil.js') as {
    getWindowsInstallationDirName(appInfo: { productFilename: string; sanitizedName: string }, b: boolean): string;
    getWindowsInstallationAppPackageName(name: string): string;
  };
const { sanitizeFileName } = require('builder-util/out/filename') as { sanitizeFileName(s: string): string };

const PROFILE = {
  USERPROFILE: 'C:\\Users\\Zoë Dev',
  APPDATA: 'C:\\Users\\Zoë Dev\\AppData\\Roaming',
  LOCALAPPDATA: 'C:\\Users\\Zoë Dev\\AppData\\Local',
};

/** NsisTarget.js's defines for our package.json and electron-builder.yml. */
function nsisDefines(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string };
  const builder = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as {
    productName: string;
    executableName?: string;
    nsis: { oneClick: boolean; perMachine: boolean };
  };
  const appInfo = {
    productFilename: sanitizeFileName(builder.executableName ?? builder.productName),
    sanitizedName: sanitizeFileName(pkg.name),
  };
  const defines: Record<string, string> = {
    APP_FILENAME: getWindowsInstallationDirName(appInfo, !builder.nsis.oneClick || builder.nsis.perMachine),
    APP_PACKAGE_NAME: getWindowsInstallationAppPackageName(pkg.name),
  };
  // NsisTarget.configureDefinesForAllTypeOfInstaller: defined only when it differs.
  if (defines.APP_FILENAME !== appInfo.productFilename) defines.APP_PRODUCT_FILENAME = appInfo.productFilename;
  return defines;
}

/** $INSTDIR for a per-user install without a previous one: multiUser.nsh setInstallModePerUser. */
function installDir(defines: Record<string, string>): string {
  const text = readFileSync(path.join(TEMPLATES, 'multiUser.nsh'), 'utf8');
  const base = /StrCpy \$0 "(\$LocalAppData\\Programs)"/.exec(text)?.[1];
  expect(base, 'multiUser.nsh no longer sets the per-user root this way: re-read it').toBeDefined();
  expect(text).toContain('StrCpy $INSTDIR "$0\\${APP_FILENAME}"');
  return expand(`${base}\\\${APP_FILENAME}`, defines, {});
}

/** NSIS `$VAR` (case-insensitive) and `${DEFINE}` substitution; anything unknown fails the test. */
function expand(text: string, defines: Record<string, string>, vars: Record<string, string>): string {
  return text
    .replace(/\$\{([A-Za-z_]+)\}/g, (_m, name: string) => {
      const v = defines[name];
      if (v === undefined) throw new Error(`unknown define \${${name}} in ${text}`);
      return v;
    })
    .replace(/\$([A-Za-z_]+)/g, (_m, name: string) => {
      const key = Object.keys({ ...PROFILE, ...vars }).find((k) => k.toLowerCase() === name.toLowerCase());
      if (key === undefined) throw new Error(`unknown variable $${name} in ${text}: model it`);
      return ({ ...PROFILE, ...vars } as Record<string, string>)[key]!;
    });
}

/** Every `RMDir /r <folder>` of a script, with each `!ifdef X` it sits in (skipped when X is not defined). */
function recursiveRemovals(file: string): { folder: string; needs: string[] }[] {
  const found: { folder: string; needs: string[] }[] = [];
  const open: string[] = [];
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const t = line.trim();
    const ifdef = /^!ifdef\s+(\S+)/.exec(t);
    if (ifdef) open.push(ifdef[1]!);
    else if (/^!if/.test(t)) open.push('');
    else if (/^!endif/.test(t)) open.pop();
    const m = /^RMDir\s+(?:\/r\s+(?:\/REBOOTOK\s+)?|\/REBOOTOK\s+\/r\s+)("?)(.+?)\1\s*(?:[;#].*)?$/i.exec(t);
    if (m) found.push({ folder: m[2]!, needs: open.filter(Boolean) });
  }
  return found;
}

let root: string;
const onDisk = (win: string): string => path.join(root, ...win.replace(/^([A-Za-z]):\\/, '$1\\').split('\\'));

/** `RMDir /r` as NTFS does it: names match whatever their case. */
function removeTree(win: string): void {
  let at = root;
  for (const part of win.replace(/^([A-Za-z]):\\/, '$1\\').split('\\')) {
    const hit = existsSync(at) ? readdirSync(at).find((n) => n.toLowerCase() === part.toLowerCase()) : undefined;
    if (hit === undefined) return;
    at = path.join(at, hit);
  }
  rmSync(at, { recursive: true, force: true });
}

function put(win: string, text: string): void {
  const file = onDisk(win);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'contactor-uninstall-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('an uninstall, with --delete-app-data, as the uninstaller script says', () => {
  it('removes the install folder and the app-data folders, and never the config', () => {
    const defines = nsisDefines();
    const instDir = installDir(defines);
    const scripts = [path.join(TEMPLATES, 'uninstaller.nsh'), path.join(ROOT, 'build', 'installer.nsh')];
    const removed = scripts
      .flatMap(recursiveRemovals)
      .filter((r) => r.needs.every((d) => d in defines))
      .map((r) => expand(r.folder, defines, { INSTDIR: instDir }));
    // The parse found what the template is known to remove: an empty list would prove nothing.
    expect(removed).toContain(instDir);
    expect(removed).toContain(`${PROFILE.APPDATA}\\contactor`);

    const config = defaultConfigPath(PROFILE, 'win32');
    const legacy = legacyConfigPath(PROFILE, 'win32')!;
    const token = `${defaultDataDir(PROFILE, 'win32')}\\token`;
    put(config, 'port: 9130\n# mine\n');
    put(legacy, 'port: 9130\n# mine, before the move\n');
    put(token, 'secret');
    put(`${userDataDir(true, PROFILE, PROFILE.USERPROFILE)}\\Local State`, '{}');
    put(`${instDir}\\Contactor.exe`, 'MZ');
    put(`${instDir}\\resources\\cli\\contactor.exe`, 'MZ');

    for (const folder of removed) removeTree(folder);

    // The model bites: the install and the former config folder are gone ...
    expect(existsSync(onDisk(`${instDir}\\Contactor.exe`))).toBe(false);
    expect(existsSync(onDisk(legacy))).toBe(false);
    // ... and the config, in its default place, is there as the user left it (so are tasks and the token).
    expect(readFileSync(onDisk(config), 'utf8')).toBe('port: 9130\n# mine\n');
    expect(existsSync(onDisk(token))).toBe(true);
  });
});
