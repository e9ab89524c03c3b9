/**
 * The name the save dialog suggests for a file an agent produced (activity window → Save). The agent chose it,
 * so it is treated as hostile: only a bare file name is kept, Windows' device names are refused, and a name that
 * Windows would run or install on a double-click is made harmless.
 * SECURITY.md "What the desktop app saves and answers with one click".
 */
import path from 'node:path';

/**
 * Names Windows maps to a device in any folder, with any extension, in any case, after trailing dots and spaces
 * are dropped: "Naming Files, Paths, and Namespaces" (Microsoft Learn, "Do not use the following reserved
 * names…": CON, PRN, AUX, NUL, COM0–COM9, COM¹–COM³, LPT0–LPT9, LPT¹–LPT³), plus CONIN$ and CONOUT$, which
 * CreateFile opens as the console ("Console Handles"). A save to `CON.txt` writes to no file at all.
 */
const RESERVED_DEVICE = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$)$/i;

/**
 * Extensions Windows runs, installs, mounts or hands to an interpreter when the file is opened: the Attachment
 * Manager's high-risk list (Microsoft KB883260, "Description of how the Attachment Manager works") with the types
 * that came after it (PowerShell, app packages, ClickOnce, disk images, Office add-ins, shell shortcuts).
 */
export const EXECUTABLE_EXTENSIONS: ReadonlySet<string> = new Set(
  [
    'ade', 'adp', 'app', 'appref-ms', 'application', 'appx', 'appxbundle', 'bas', 'bat', 'cer', 'chm', 'cmd', 'com',
    'cpl', 'crt', 'diagcab', 'exe', 'gadget', 'hlp', 'hta', 'img', 'inf', 'ins', 'iso', 'isp', 'jar', 'js', 'jse',
    'library-ms', 'lnk', 'mde', 'msc', 'msh', 'msh1', 'msh2', 'mshxml', 'msi', 'msix', 'msixbundle', 'msp', 'mst',
    'pif', 'ps1', 'ps1xml', 'ps2', 'ps2xml', 'psc1', 'psc2', 'psd1', 'psm1', 'reg', 'scf', 'scr', 'sct',
    'search-ms', 'settingcontent-ms', 'shb', 'shs', 'url', 'vb', 'vbe', 'vbs', 'vhd', 'vhdx', 'ws', 'wsc', 'wsf',
    'wsh', 'xbap', 'xll',
  ], // prettier-ignore
);

/**
 * What an executable name becomes: `.txt` appended. The bytes still reach the person (an agent asked to write a
 * script or build a tool did real work), a double-click opens them in a text editor instead of running them, and
 * running them takes a deliberate rename — after which the file still carries the Mark of the Web
 * (mark-of-the-web.ts), so SmartScreen and PowerShell's execution policy treat it as downloaded.
 */
export const HARMLESS_SUFFIX = '.txt';

/**
 * An agent's file name as a bare name: no folders, no characters Windows refuses, no leading or trailing dots and
 * spaces (Windows drops trailing ones, so `a.exe.` would be `a.exe`), no device name, no executable extension;
 * undefined when nothing usable is left (the caller then uses its own name).
 */
export function safeName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  // Also the bidirectional controls that show `txt.exe` as `exe.txt` (U+202E and its kin) and C1 controls.
  const base = path.win32
    .basename(path.posix.basename(name))
    .replace(/[<>:"/\\|?*\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '_');
  const trimmed = base
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 200)
    .replace(/[.\s]+$/, '');
  if (trimmed === '') return undefined;
  // The device name is what comes before the first dot, trailing spaces dropped ("CON .txt" is CON too).
  const stem = trimmed.split('.')[0]!.trimEnd();
  if (RESERVED_DEVICE.test(stem)) return undefined;
  const extension = trimmed.includes('.') ? trimmed.slice(trimmed.lastIndexOf('.') + 1).toLowerCase() : '';
  return EXECUTABLE_EXTENSIONS.has(extension) ? `${trimmed}${HARMLESS_SUFFIX}` : trimmed;
}
