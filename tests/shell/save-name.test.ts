/**
 * The name the save dialog suggests for an agent's file (save-name.ts): literal agent names in, literal
 * suggestions out. `undefined` means the caller's own name (`<artifactId>-<part>`) is used instead.
 */
import { describe, expect, it } from 'vitest';
import { safeName } from '../../main/shell/save-name.js';

describe('safeName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['notes.md', 'notes.md'],
    ['Makefile', 'Makefile'],
    ['archive.tar.gz', 'archive.tar.gz'],
    // Folders are dropped, either separator.
    ['../../AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/run.txt', 'run.txt'],
    ['C:\\Windows\\System32\\drivers\\etc\\hosts', 'hosts'],
    // Characters Windows refuses, an alternate data stream, controls.
    ['notes.txt:Zone.Identifier', 'notes.txt_Zone.Identifier'],
    ['notes.txt:evil.exe', 'notes.txt_evil.exe.txt'],
    ['a:b.txt', 'b.txt'], // `a:` is a drive-relative prefix to Windows: a folder, dropped
    ['a.txt::$DATA', 'a.txt__$DATA'],
    ['what?.txt', 'what_.txt'],
    ['tab\tname.txt', 'tab_name.txt'],
    // Leading and trailing dots and spaces (Windows drops trailing ones).
    ['  .hidden.txt. . ', 'hidden.txt'],
    ['...', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %j', (name, want) => expect(safeName(name)).toBe(want));

  it.each([
    ['CON', undefined],
    ['con', undefined],
    ['CON.txt', undefined],
    ['Con.tar.gz', undefined],
    ['CON .txt', undefined],
    ['CON. .', undefined],
    ['  nul  ', undefined],
    ['NUL.', undefined],
    ['PRN.log', undefined],
    ['aux.c', undefined],
    ['COM1', undefined],
    ['com9.json', undefined],
    ['COM0.txt', undefined],
    ['COM¹.txt', undefined],
    ['LPT1', undefined],
    ['lpt9.md', undefined],
    ['LPT³', undefined],
    ['CONIN$', undefined],
    ['conout$.txt', undefined],
    ['dir/CON.txt', undefined],
    // Not device names: longer, shorter, or the name elsewhere.
    ['COM10.txt', 'COM10.txt'],
    ['LPT.txt', 'LPT.txt'],
    ['CONSOLE.txt', 'CONSOLE.txt'],
    ['icon.png', 'icon.png'],
    ['my.con', 'my.con'],
    ['nul-result.txt', 'nul-result.txt'],
  ])('reserved device name %j → %j', (name, want) => expect(safeName(name)).toBe(want));

  it.each([
    ['setup.exe', 'setup.exe.txt'],
    ['SETUP.EXE', 'SETUP.EXE.txt'],
    ['install.msi', 'install.msi.txt'],
    ['fix.ps1', 'fix.ps1.txt'],
    ['build.bat', 'build.bat.txt'],
    ['build.cmd', 'build.cmd.txt'],
    ['run.vbs', 'run.vbs.txt'],
    ['tool.js', 'tool.js.txt'],
    ['page.hta', 'page.hta.txt'],
    ['screensaver.scr', 'screensaver.scr.txt'],
    ['Documents.lnk', 'Documents.lnk.txt'],
    ['site.url', 'site.url.txt'],
    ['tweak.reg', 'tweak.reg.txt'],
    ['disk.iso', 'disk.iso.txt'],
    ['app.msix', 'app.msix.txt'],
    ['module.psm1', 'module.psm1.txt'],
    ['panel.cpl', 'panel.cpl.txt'],
    ['lib.jar', 'lib.jar.txt'],
    // The extension Windows sees is the last one, after trailing dots and spaces are dropped.
    ['invoice.pdf.exe', 'invoice.pdf.exe.txt'],
    ['invoice.exe. . ', 'invoice.exe.txt'],
    ['invoice.exe ', 'invoice.exe.txt'],
    // U+202E shows "invoice\u202Efdp.exe" as "invoiceexe.pdf": the control is replaced, the name renamed.
    ['invoice\u202Efdp.exe', 'invoice_fdp.exe.txt'],
    // Not executable: left as they are.
    ['setup.exe.txt', 'setup.exe.txt'],
    ['main.ts', 'main.ts'],
    ['data.json', 'data.json'],
    ['exe', 'exe'],
  ])('executable %j → %j', (name, want) => expect(safeName(name)).toBe(want));

  it('cuts a long name to 200 characters before judging its extension', () => {
    expect(safeName(`${'a'.repeat(300)}.exe`)).toBe('a'.repeat(200));
    expect(safeName(`${'a'.repeat(196)}.exe`)).toBe(`${'a'.repeat(196)}.exe.txt`);
  });
});
