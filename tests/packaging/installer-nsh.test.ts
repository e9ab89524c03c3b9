/**
 * Issue 14 items 6 and 12: build/installer.nsh compiled with Debian's makensis the way electron-builder
 * compiles it. The header comes from electron-builder's own NsisScriptGenerator (app-builder-lib
 * out/targets/nsis/nsisScriptGenerator.js: include dir, the `--updated`… flags, our include), with
 * `-WX` (NsisTarget.js: warnings are errors) and the defines it passes (APP_ID, APP_EXECUTABLE_FILENAME,
 * PRODUCT_NAME, BUILD_UNINSTALLER for the uninstaller pass). The hooks are inserted where its templates
 * insert them: CHECK_APP_RUNNING (include/allowOnlyOneInstallerInstance.nsh, the real file) in the install
 * section and in un.checkAppRunning (installSection.nsh, uninstaller.nsh), customInstall after the files,
 * customUnInstall in the uninstall section.
 *
 * Two stand-ins, because electron-builder downloads them from GitHub: StdUtils.TestParameter (the StdUtils
 * plugin; same meaning: is `/name` on the command line, via NSIS's own FileFunc) and the language strings
 * electron-builder generates from templates/nsis/messages.yml.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOAST_ACTIVATOR_CLSID } from '../../main/shell/layout.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const TEMPLATES = path.join(ROOT, 'node_modules', 'app-builder-lib', 'templates', 'nsis');
const { NsisScriptGenerator } = require('app-builder-lib/out/targets/nsis/nsisScriptGenerator.js') as {
  NsisScriptGenerator: new () => {
    addIncludeDir(dir: string): void;
    include(file: string): void;
    flags(names: string[]): void;
    build(): string;
  };
};
const MAKENSIS = ['/usr/bin/makensis', '/usr/local/bin/makensis'].find((p) => existsSync(p));
const NSH = path.join(ROOT, 'build', 'installer.nsh');

// No LogicLib inside: it runs as the test of electron-builder's `\${isUpdated}` flag inside `\${ifNot}`.
const STDUTILS_STAND_IN = `!include FileFunc.nsh
!macro _StdU_TestParameter out name
  Push $0
  \${GetParameters} $0
  ClearErrors
  \${GetOptions} $0 "/\${name}" $0
  StrCpy $0 "true"
  IfErrors 0 +2
    StrCpy $0 "false"
  Exch $0
  Pop \${out}
!macroend
!define StdUtils.TestParameter '!insertmacro _StdU_TestParameter'
`;

function script(uninstaller: boolean): string {
  const header = new NsisScriptGenerator();
  header.addIncludeDir(path.join(TEMPLATES, 'include'));
  // NsisTarget.computeCommonInstallerScriptHeader's flag list.
  header.flags([
    'updated',
    'force-run',
    'keep-shortcuts',
    'no-desktop-shortcut',
    'delete-app-data',
    'allusers',
    'currentuser',
  ]);
  header.include(NSH);
  const body = `
Name "\${PRODUCT_NAME}"
OutFile "${path.join(tmp, uninstaller ? 'uninstaller-build.exe' : 'installer.exe')}"
InstallDir "$LOCALAPPDATA\\Programs\\contactor"
RequestExecutionLevel user
LoadLanguageFile "\${NSISDIR}\\Contrib\\Language files\\English.nlf"
LangString appRunning \${LANG_ENGLISH} "\${PRODUCT_NAME} is running. Click OK to close it."
LangString appClosing \${LANG_ENGLISH} "Closing running \${PRODUCT_NAME}..."
LangString appCannotBeClosed \${LANG_ENGLISH} "\${PRODUCT_NAME} cannot be closed."
; installer.nsi includes common.nsh (x64.nsh, WinVer.nsh: LogicLib) before allowOnlyOneInstallerInstance.nsh.
!include x64.nsh
!include WinVer.nsh
!include "allowOnlyOneInstallerInstance.nsh"
!ifdef BUILD_UNINSTALLER
  Function un.checkAppRunning
    !insertmacro CHECK_APP_RUNNING
  FunctionEnd
  Section "install"
    WriteUninstaller "$INSTDIR\\uninstall.exe"
  SectionEnd
  Section "un.install"
    Call un.checkAppRunning
    !insertmacro customUnInstall
  SectionEnd
!else
  Section "install"
    !insertmacro CHECK_APP_RUNNING
    SetOutPath $INSTDIR
    !insertmacro customInstall
  SectionEnd
!endif
`;
  // NsisTarget passes `Unicode true` as a command (-X) before the script: it must come first.
  return 'Unicode true\n' + STDUTILS_STAND_IN + header.build() + body;
}

let tmp: string;

async function makensis(uninstaller: boolean): Promise<{ stdout: string; stderr: string }> {
  const file = path.join(tmp, uninstaller ? 'uninstaller.nsi' : 'installer.nsi');
  writeFileSync(file, script(uninstaller));
  const defines = ['-DAPP_ID=dev.contactor.app', '-DAPP_EXECUTABLE_FILENAME=Contactor.exe', '-DPRODUCT_NAME=Contactor'];
  return promisify(execFile)(
    MAKENSIS!,
    ['-WX', '-INPUTCHARSET', 'UTF8', ...defines, ...(uninstaller ? ['-DBUILD_UNINSTALLER'] : []), file],
    { cwd: TEMPLATES, timeout: 60_000 },
  );
}

describe.skipIf(!MAKENSIS)('build/installer.nsh under makensis', () => {
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'contactor-nsis-'));
  });
  afterAll(() => {
    if (!process.env.KEEP_NSIS) rmSync(tmp, { recursive: true, force: true });
  });

  it('compiles into the installer pass without a warning', async () => {
    const { stderr } = await makensis(false);
    expect(stderr).not.toMatch(/^Error/m);
    expect(existsSync(path.join(tmp, 'installer.exe'))).toBe(true);
  }, 60_000);

  it('compiles into the uninstaller pass without a warning', async () => {
    await makensis(true);
    expect(existsSync(path.join(tmp, 'uninstaller-build.exe'))).toBe(true);
  }, 60_000);

  it('the check has teeth: a broken hook fails the build', async () => {
    const good = readFileSync(NSH, 'utf8');
    try {
      writeFileSync(NSH, good.replace('Call contactorPathWithout', 'Call contactorPathWithoutTypo'));
      await expect(makensis(false)).rejects.toThrow(/contactorPathWithoutTypo/);
    } finally {
      writeFileSync(NSH, good);
    }
  }, 60_000);
});

describe('build/installer.nsh content', () => {
  const nsh = readFileSync(NSH, 'utf8');
  it('removes the toast activator key the app registers, and only on a real uninstall', () => {
    expect(nsh).toContain(`!define CONTACTOR_TOAST_CLSID "${TOAST_ACTIVATOR_CLSID}"`);
    const uninstall = nsh.slice(nsh.indexOf('!macro customUnInstall'));
    expect(uninstall).toMatch(
      /\$\{ifNot\} \$\{isUpdated\}[\s\S]*DeleteRegKey HKCU "Software\\Classes\\CLSID\\\$\{CONTACTOR_TOAST_CLSID\}"/,
    );
  });

  it('asks the running app to quit before electron-builder’s own kill', () => {
    const check = nsh.slice(nsh.indexOf('!macro customCheckAppRunning'), nsh.indexOf('!macroend'));
    expect(check.indexOf('--quit')).toBeGreaterThan(0);
    expect(check.indexOf('--quit')).toBeLessThan(check.indexOf('!insertmacro _CHECK_APP_RUNNING'));
  });
});
