/**
 * The URL Chromium gives a page loaded with `webContents.loadFile(file)`, i.e. what `senderFrame.url` says
 * in the main process. Two real steps, reproduced:
 *
 * 1. Electron's `WebContents.prototype.loadFile` (electron/electron lib/browser/api/web-contents.ts) calls
 *    `loadURL(url.format({ protocol: 'file', slashes: true, pathname: path.resolve(appPath, file) }))`:
 *    Node's legacy `url.format` only escapes `#` and `?` in the pathname.
 * 2. Chromium canonicalises the file URL (chromium/chromium url/url_canon_fileurl.cc `FileDoDriveSpec`:
 *    "Normalize Windows drive letters to uppercase"; url/url_canon_path.cc `DoPartialPathInternal` with
 *    `kPathCharLookup`): `\` becomes `/`; `~`, `[`, `]` pass unescaped; a `%` not followed by two hex digits
 *    stays a bare `%`; `%XX` of an unreserved character is unescaped; space, `"`, `<`, `>`, `^`, `` ` ``, `{`,
 *    `|`, `}` and every non-ASCII byte (UTF-8) become `%XX` with upper-case hex.
 *
 * Node's `pathToFileURL` instead gives `%7E`, `%5B`, `%5D`, `%25` and keeps a lowercase drive letter, which
 * is why the approval window's IPC check compares frames, not URL strings.
 */
import { format } from 'node:url';

// kPathCharLookup, restricted to the printable ASCII range: E = escape, U = unescape %XX, P = pass.
const TABLE =
  //  !"#$%&'()*+,-./0123456789:;<=>?
  'EPEEPEPPPPPPPUPPUUUUUUUUUUPPEPEE' +
  // @ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_
  'PUUUUUUUUUUUUUUUUUUUUUUUUUUPEPEU' +
  // `abcdefghijklmnopqrstuvwxyz{|}~
  'EUUUUUUUUUUUUUUUUUUUUUUUUUUEEEUE';

function flagOf(byte: number): string {
  return byte >= 0x20 && byte < 0x80 ? TABLE[byte - 0x20]! : 'E';
}

const hex = (byte: number): string => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** Chromium's path canonicalisation of `path` (after the drive spec), ignoring `.`/`..` segments. */
function canonicalPath(path: string): string {
  const bytes = Buffer.from(path, 'utf8');
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i]!;
    const ch = String.fromCharCode(b);
    if (ch === '\\') out += '/';
    else if (ch === '%') {
      const pair = bytes.subarray(i + 1, i + 3).toString('latin1');
      if (/^[0-9A-Fa-f]{2}$/.test(pair)) {
        const value = parseInt(pair, 16);
        out += flagOf(value) === 'U' ? String.fromCharCode(value) : `%${pair}`;
        i += 2;
      } else out += '%';
    } else if (flagOf(b) === 'E' && ch !== '/' && ch !== '.') out += hex(b);
    else out += ch;
  }
  return out;
}

/** The frame URL after `loadFile(absolutePath)`; Windows paths are canonicalised as Chromium on Windows does. */
export function frameUrlAfterLoadFile(absolutePath: string): string {
  const formatted = format({ protocol: 'file', slashes: true, pathname: absolutePath });
  const rest = formatted.slice('file://'.length);
  const drive = /^\/?([A-Za-z])[:|]/.exec(rest);
  if (!drive) return `file://${canonicalPath(rest)}`;
  return `file:///${drive[1]!.toUpperCase()}:${canonicalPath(rest.slice(drive[0].length))}`;
}
