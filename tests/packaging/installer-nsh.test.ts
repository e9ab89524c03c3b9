/**
 * The installer's PATH entry and its quit-the-app step: build/installer.nsh compiled with Debian's makensis the way
 * electron-builder compiles it. The header comes from electron-builder's own NsisScriptGenerator (app-builder-lib
 * out/targets/nsis/nsisScriptGenerator.js: include dir, the `--updated`… flags, our include), with `-WX`
 * (NsisTarget.js: warnings are errors) and the defines it passes (APP_ID, APP_EXECUTABLE_FILENAME, PRODUCT_NAME,
 * BUILD_UNINSTALLER for the uninstaller pass). The hooks are inserted where its templates insert them:
 * CHECK_APP_RUNNING (include/allowOnlyOneInstallerInstance.nsh, the real file) in the install section and in
 * un.checkAppRunning (installSection.nsh, uninstaller.nsh), customInstall after the files, customUnInstall in the
 * uninstall section.
 *
 * Two stand-ins, because electron-builder downloads them from GitHub: StdUtils.TestParameter (the StdUtils
 * plugin; same meaning for the flags electron-builder passes, e.g. `--updated` from include/installUtil.nsh,
 * via NSIS's own FileFunc GetOptions) and the language strings it generates from templates/nsis/messages.yml.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
!include WordFunc.nsh
!macro _StdU_TestParameter out name
  Push $0
  Push $1
  \${GetParameters} $0
  ClearErrors
  \${WordFind} "$0 " "--\${name} " "E#" $1
  StrCpy $0 "true"
  IfErrors 0 +2
    StrCpy $0 "false"
  Pop $1
  Exch $0
  Pop \${out}
!macroend
!define StdUtils.TestParameter '!insertmacro _StdU_TestParameter'
`;

interface ScriptOptions {
  /** 64-bit stubs, so Wine's wine64 can run the result. */
  amd64?: boolean;
  /** Leave out the app-running check (it drives PowerShell/tasklist, which Wine does not have like Windows). */
  registryOnly?: boolean;
  outFile?: string;
  /** The hook file to include (a broken copy in the temp dir for the test that proves the check has teeth). */
  nsh?: string;
}

function script(uninstaller: boolean, opts: ScriptOptions = {}): string {
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
  header.include(opts.nsh ?? NSH);
  const body = `
Name "\${PRODUCT_NAME}"
OutFile "${opts.outFile ?? path.join(tmp, uninstaller ? 'uninstaller-build.exe' : 'installer.exe')}"
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
  const checked = opts.registryOnly ? body.replace(/^.*(CHECK_APP_RUNNING|Call un\.checkAppRunning).*$/gm, '') : body;
  // NsisTarget passes `Unicode true` as a command (-X) before the script: it must come first.
  const target = opts.amd64 ? 'Target amd64-unicode' : 'Unicode true';
  return `${target}\n${STDUTILS_STAND_IN}${header.build()}${checked}`;
}

let tmp: string;

async function makensis(uninstaller: boolean, opts: ScriptOptions = {}): Promise<{ stdout: string; stderr: string }> {
  const file = path.join(tmp, `${uninstaller ? 'uninstaller' : 'installer'}${opts.amd64 ? '64' : ''}.nsi`);
  writeFileSync(file, script(uninstaller, opts));
  const defines = ['-DAPP_ID=dev.contactor.app', '-DAPP_EXECUTABLE_FILENAME=Contactor.exe', '-DPRODUCT_NAME=Contactor'];
  return promisify(execFile)(
    MAKENSIS!,
    // Without the app check, getProcessInfo.nsh's function is unused: a warning, so -WX only for the full build.
    [
      ...(opts.registryOnly ? [] : ['-WX']),
      '-INPUTCHARSET',
      'UTF8',
      ...defines,
      ...(uninstaller ? ['-DBUILD_UNINSTALLER'] : []),
      file,
    ],
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
  });

  it('compiles into the uninstaller pass without a warning', async () => {
    await makensis(true);
    expect(existsSync(path.join(tmp, 'uninstaller-build.exe'))).toBe(true);
  });

  it('the check has teeth: a broken hook fails the build', async () => {
    // A broken copy in the temp dir: the repository's file is never rewritten, even by a run killed midway.
    const broken = path.join(tmp, 'installer-broken.nsh');
    writeFileSync(
      broken,
      readFileSync(NSH, 'utf8').replace('Call contactorPathWithout', 'Call contactorPathWithoutTypo'),
    );
    await expect(makensis(false, { nsh: broken })).rejects.toThrow(/contactorPathWithoutTypo/);
  });
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

  // Without Wine the registry tests below skip; this holds everywhere: ReadRegStr tells no type (NSIS exec.c
  // EW_READREGSTR), so no write of the user's Path may pick one itself — each goes through the macro that writes the
  // type RegGetValueW reported, and only a Path the installer created is ever deleted.
  it('writes the user’s Path only with the type it was read with, and deletes it only if the installer created it', () => {
    const writes = nsh
      .split('\n')
      .filter((line) => /^\s*(WriteReg\w+|DeleteRegValue) HKCU "Environment" "Path"/.test(line));
    expect(writes.map((line) => line.trim())).toEqual([
      'WriteRegStr HKCU "Environment" "Path" "${VALUE}"',
      'WriteRegExpandStr HKCU "Environment" "Path" "${VALUE}"',
      'DeleteRegValue HKCU "Environment" "Path"',
    ]);
    const write = nsh.slice(
      nsh.indexOf('!macro CONTACTOR_WRITE_USER_PATH'),
      nsh.indexOf('!macroend', nsh.indexOf('!macro CONTACTOR_WRITE_USER_PATH')),
    );
    expect(write).toMatch(/\$\{if\} \$contactorUserPathType == 1\s+WriteRegStr/);
    const uninstall = nsh.slice(nsh.indexOf('!macro customUnInstall'));
    expect(uninstall).toMatch(/\$\{andIf\} \$2 == 1\s+(;.*\s+)*DeleteRegValue HKCU "Environment" "Path"/);
  });

  it('stops every bridge of this install (/shutdown via its discovery file), then asks the app to quit, then kills', () => {
    const check = nsh.slice(nsh.indexOf('!macro customCheckAppRunning'), nsh.indexOf('!macroend'));
    // `contactor down` (main/cli/commands/lifecycle.ts): discovery file, POST /shutdown, a bounded wait.
    const down = check.indexOf('contactor.exe" down');
    const legacyDown = check.indexOf('contactor.cjs" down');
    expect(down).toBeGreaterThan(0);
    expect(legacyDown).toBeGreaterThan(down);
    expect(check.indexOf('--quit')).toBeGreaterThan(legacyDown);
    expect(check.indexOf('--quit')).toBeLessThan(check.indexOf('!insertmacro _CHECK_APP_RUNNING'));
  });
});

/**
 * The PATH and registry steps run for real: the 64-bit build of the same script under Wine 8 (its registry
 * and `reg.exe`), install → reinstall → update-uninstall → uninstall. The app-running check is left out here
 * (it drives PowerShell and tasklist, which Wine lacks); it is compiled above and checked on Windows.
 */
const WINE = '/usr/lib/wine/wine64';
const WINESERVER = '/usr/lib/wine/wineserver';
describe.skipIf(!MAKENSIS || !existsSync(WINE))('build/installer.nsh under Wine (registry and PATH)', () => {
  let prefix: string;
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    WINEPREFIX: prefix,
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
  });
  const wine = (...args: string[]): Promise<string> => run(WINE, args, 60_000);
  /**
   * One Wine command; resolves with its stdout once it exits, rejects on a non-zero exit with its stderr.
   * stderr goes to a file, not a pipe: the wineserver that wine starts inherits stderr and holds it open for its
   * idle timeout (~3 s, `wineserver -p` in wineserver(1)) after the command exits, so a pipe would make every call
   * wait that long for 'close'.
   */
  const run = (file: string, args: string[], timeout: number): Promise<string> => {
    const errFile = path.join(tmp, `wine-${++calls}.err`);
    const errFd = openSync(errFile, 'w');
    const child = spawn(file, args, { env: env(), timeout, stdio: ['ignore', 'pipe', errFd] });
    closeSync(errFd);
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        if (code === 0) resolve(stdout);
        else reject(new Error(`${file} ${args.join(' ')}: exit ${code ?? signal}\n${readFileSync(errFile, 'utf8')}`));
      });
    });
  };
  let calls = 0;
  const userPath = async (): Promise<string | undefined> => {
    const out = await wine('reg', 'query', 'HKCU\\Environment', '/v', 'Path').catch(() => '');
    return /Path\s+(REG_\w+)\s+(.*)/.exec(out)?.slice(1).join(' ').trim();
  };
  const CLSID_KEY = `HKCU\\Software\\Classes\\CLSID\\${TOAST_ACTIVATOR_CLSID}`;
  const clsidPresent = async (): Promise<boolean> =>
    wine('reg', 'query', CLSID_KEY).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'contactor-nsis-'));
    prefix = mkdtempSync(path.join(tmpdir(), 'contactor-wine-'));
    const boot = async (): Promise<void> => {
      await run(WINE, ['wineboot', '-i'], 120_000);
      // wineboot leaves work running in the background; wait until the prefix is settled.
      await run(WINESERVER, ['-w'], 120_000);
    };
    // The two builds need no prefix: they compile while Wine sets it up.
    await Promise.all([
      boot(),
      makensis(false, { amd64: true, registryOnly: true, outFile: path.join(tmp, 'setup64.exe') }),
      makensis(true, { amd64: true, registryOnly: true, outFile: path.join(tmp, 'unbuild64.exe') }),
    ]);
  }, 180_000);
  afterAll(async () => {
    // The last command's wineserver is still idling in this prefix: end it before its folder goes.
    await run(WINESERVER, ['-k'], 60_000).catch(() => undefined);
    rmSync(prefix, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('adds the CLI folder once, keeps the user’s entries and REG_EXPAND_SZ, and removes only it on uninstall', async () => {
    await wine(
      'reg',
      'add',
      'HKCU\\Environment',
      '/v',
      'Path',
      '/t',
      'REG_EXPAND_SZ',
      '/d',
      'C:\\tools;%USERPROFILE%\\bin',
      '/f',
    );
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    const installed = 'REG_EXPAND_SZ C:\\tools;%USERPROFILE%\\bin;C:\\inst\\resources\\cli';
    expect(await userPath()).toBe(installed);
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    expect(await userPath()).toBe(installed);

    // The uninstaller, written by the uninstaller pass as electron-builder does.
    await wine(path.join(tmp, 'unbuild64.exe'), '/S', '/D=C:\\inst');
    await wine('reg', 'add', `${CLSID_KEY}\\LocalServer32`, '/ve', '/d', 'C:\\inst\\Contactor.exe', '/f');
    // An update runs the old uninstaller with --updated (include/installUtil.nsh): nothing of ours goes.
    await wine('C:\\inst\\uninstall.exe', '/S', '--updated', '_?=C:\\inst');
    expect(await userPath()).toBe(installed);
    expect(await clsidPresent()).toBe(true);

    await wine('C:\\inst\\uninstall.exe', '/S', '_?=C:\\inst');
    expect(await userPath()).toBe('REG_EXPAND_SZ C:\\tools;%USERPROFILE%\\bin');
    expect(await clsidPresent()).toBe(false);
  }, 120_000);

  const MINGW = ['/usr/bin/x86_64-w64-mingw32-gcc'].find((p) => existsSync(p));
  it.skipIf(!MINGW)(
    'tells running programs the environment changed: WM_SETTINGCHANGE "Environment"',
    async () => {
      // A window needs a display driver: Wine's null driver, in this test's own prefix.
      await wine('reg', 'add', 'HKCU\\Software\\Wine\\Drivers', '/v', 'Graphics', '/d', 'null', '/f');
      const listener = path.join(tmp, 'listener.exe');
      await promisify(execFile)(MINGW!, [
        '-municode',
        '-O2',
        '-o',
        listener,
        path.join(ROOT, 'tests/packaging/wine-only/setting-change-listener.c'),
      ]);
      const report = path.join(tmp, 'setting-change.txt');
      const heard = wine(listener, `Z:${report.replaceAll('/', '\\')}`);
      await vi.waitFor(() => expect(existsSync(report) && readFileSync(report, 'utf8')).toBe('ready'), {
        timeout: 60_000,
        interval: 100,
      });
      await wine('reg', 'add', 'HKCU\\Environment', '/v', 'Path', '/t', 'REG_EXPAND_SZ', '/d', 'C:\\tools', '/f');
      await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
      await heard; // exit 0 only after the broadcast
      expect(readFileSync(report, 'utf8')).toBe('Environment');
    },
    180_000,
  );

  /**
   * NSIS's ReadRegStr on a value longer than NSIS_MAX_STRLEN (1024 in this makensis, 8192 in electron-builder's)
   * yields "" with the error flag (NSIS Source/exehead/exec.c, EW_READREGSTR), exactly as for a missing value. An
   * installer that takes that "" for "no PATH yet" replaces the user's whole PATH with its folder. The lengths: a
   * real one seen in the wild (1,259) and one past electron-builder's 8192 as well (9,000).
   */
  const longPath = (length: number): string => {
    let value = '%USERPROFILE%\\bin';
    for (let i = 0; value.length < length; i++) value += `;C:\\tools\\t${String(i).padStart(4, '0')}`;
    return value.slice(0, length);
  };
  const setUserPath = (type: 'REG_SZ' | 'REG_EXPAND_SZ', value: string): Promise<string> =>
    wine('reg', 'add', 'HKCU\\Environment', '/v', 'Path', '/t', type, '/d', value, '/f');

  it.each([1259, 9000])(
    'a %i-character PATH (longer than NSIS_MAX_STRLEN) is never written, by install or uninstall',
    async (length) => {
      const user = `${longPath(length - 'C:\\inst\\resources\\cli;'.length)};C:\\inst\\resources\\cli`;
      expect(user).toHaveLength(length);
      await setUserPath('REG_EXPAND_SZ', user);
      await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
      expect(await userPath()).toBe(`REG_EXPAND_SZ ${user}`);
      await wine(path.join(tmp, 'unbuild64.exe'), '/S', '/D=C:\\inst');
      await wine('C:\\inst\\uninstall.exe', '/S', '_?=C:\\inst');
      expect(await userPath()).toBe(`REG_EXPAND_SZ ${user}`);
    },
    120_000,
  );

  it('a PATH that reads whole but would not fit with our folder added is left alone', async () => {
    const user = longPath(1010); // reads whole (< 1024), but 1010 + ";C:\inst\resources\cli" would not
    await setUserPath('REG_EXPAND_SZ', user);
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    expect(await userPath()).toBe(`REG_EXPAND_SZ ${user}`);
  }, 120_000);

  it('no PATH value at all: the installer creates it as REG_EXPAND_SZ with only our folder', async () => {
    await wine('reg', 'delete', 'HKCU\\Environment', '/v', 'Path', '/f').catch(() => '');
    expect(await userPath()).toBeUndefined();
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    expect(await userPath()).toBe('REG_EXPAND_SZ C:\\inst\\resources\\cli');
  }, 120_000);

  /** The installer's own key (installer.nsh CONTACTOR_STATE_KEY): no test inherits another's "we created Path". */
  const forgetInstalls = (): Promise<string> =>
    wine('reg', 'delete', 'HKCU\\Software\\dev.contactor.app', '/f').catch(() => '');
  const installThenUninstall = async (): Promise<void> => {
    await wine(path.join(tmp, 'unbuild64.exe'), '/S', '/D=C:\\inst');
    await wine('C:\\inst\\uninstall.exe', '/S', '_?=C:\\inst');
  };

  /**
   * ReadRegStr reads REG_SZ and REG_EXPAND_SZ alike and says neither; WriteRegStr writes REG_SZ and
   * WriteRegExpandStr REG_EXPAND_SZ (NSIS Source/exehead/exec.c, EW_READREGSTR and EW_WRITEREG). An uninstall that
   * always wrote REG_EXPAND_SZ turned a REG_SZ Path into one that expands %VARS% the user meant literally.
   */
  it.each(['REG_SZ', 'REG_EXPAND_SZ'] as const)(
    'a %s PATH keeps its type through install and uninstall',
    async (type) => {
      await forgetInstalls();
      await setUserPath(type, 'C:\\tools;%USERPROFILE%\\bin');
      await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
      expect(await userPath()).toBe(`${type} C:\\tools;%USERPROFILE%\\bin;C:\\inst\\resources\\cli`);
      await installThenUninstall();
      expect(await userPath()).toBe(`${type} C:\\tools;%USERPROFILE%\\bin`);
    },
    120_000,
  );

  it.each(['REG_SZ', 'REG_EXPAND_SZ'] as const)(
    'an empty %s PATH that existed before: the install fills it, keeping its type; the uninstall empties it, never deletes it',
    async (type) => {
      await forgetInstalls();
      await setUserPath(type, '');
      expect(await userPath()).toBe(type);
      await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
      expect(await userPath()).toBe(`${type} C:\\inst\\resources\\cli`);
      await installThenUninstall();
      expect(await userPath()).toBe(type);
    },
    120_000,
  );

  it('a PATH the installer created goes again with the uninstall, even after an update in between', async () => {
    await forgetInstalls();
    await wine('reg', 'delete', 'HKCU\\Environment', '/v', 'Path', '/f').catch(() => '');
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    await wine(path.join(tmp, 'unbuild64.exe'), '/S', '/D=C:\\inst');
    // An update: the old uninstaller with --updated, then the new installer over it.
    await wine('C:\\inst\\uninstall.exe', '/S', '--updated', '_?=C:\\inst');
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    expect(await userPath()).toBe('REG_EXPAND_SZ C:\\inst\\resources\\cli');
    await installThenUninstall();
    expect(await userPath()).toBeUndefined();
    // Its bookkeeping goes with it.
    await expect(wine('reg', 'query', 'HKCU\\Software\\dev.contactor.app')).rejects.toThrow();
  }, 180_000);

  it('an entry the user typed differently (case, trailing backslash) is still ours: kept as typed; a PATH of only ours is emptied, not deleted', async () => {
    await forgetInstalls();
    await wine(
      'reg',
      'add',
      'HKCU\\Environment',
      '/v',
      'Path',
      '/t',
      'REG_EXPAND_SZ',
      '/d',
      'c:\\INST\\resources\\cli\\',
      '/f',
    );
    await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
    expect(await userPath()).toBe('REG_EXPAND_SZ c:\\INST\\resources\\cli\\');
    await installThenUninstall();
    // The value was the user's before the install: it stays, empty.
    expect(await userPath()).toBe('REG_EXPAND_SZ');
  }, 120_000);

  // Windows' own editor and many installers leave `;;` and a trailing `;` in PATH: an install and an uninstall
  // must give the value back byte for byte (the Windows workflow checks the same on a real registry).
  it.each(['C:\\tools;;%USERPROFILE%\\bin;', ';C:\\tools', 'C:\\tools;C:\\inst\\resources\\cli;C:\\b;'])(
    'install then uninstall gives %s back exactly',
    async (user) => {
      await setUserPath('REG_EXPAND_SZ', user);
      await wine(path.join(tmp, 'setup64.exe'), '/S', '/D=C:\\inst');
      const ours = user.toLowerCase().includes('c:\\inst\\resources\\cli');
      expect(await userPath()).toBe(`REG_EXPAND_SZ ${ours ? user : `${user};C:\\inst\\resources\\cli`}`);
      await wine(path.join(tmp, 'unbuild64.exe'), '/S', '/D=C:\\inst');
      await wine('C:\\inst\\uninstall.exe', '/S', '_?=C:\\inst');
      expect(await userPath()).toBe(`REG_EXPAND_SZ ${ours ? 'C:\\tools;C:\\b;' : user}`);
    },
    120_000,
  );
});
