/**
 * Where a one-click command reads (SECURITY.md#one-click-answers): the folder it runs in, as the tool call
 * says, and whether every path it names, resolved against that folder, lies inside the task's workspace
 * and outside the protected folders. "Inside" is always platform/path-containment.ts, on real paths where
 * the path is this machine's own kind, so a symlink in the workspace that points out counts as outside.
 */
import path from 'node:path';
import { isWindowsStyle, pathContains, realPathOf } from '../platform/path-containment.js';

/** Home-relative folders that hold credentials or a browser's profile (cookies, saved passwords). */
const PROTECTED_HOME_DIRS = [
  // Credentials, POSIX and Windows alike.
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.azure',
  '.password-store',
  '.terraform.d',
  '.config/gh',
  '.config/gcloud',
  '.config/op',
  '.local/share/keyrings',
  'Library/Keychains',
  'AppData/Roaming/GitHub CLI',
  'AppData/Roaming/gcloud',
  'AppData/Roaming/Microsoft/Credentials',
  'AppData/Local/Microsoft/Credentials',
  'AppData/Roaming/Microsoft/Protect',
  // Browser profiles: Linux, macOS, Windows.
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  'snap/firefox',
  'snap/chromium',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Chromium',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
  'Library/Safari',
  'Library/Cookies',
  'AppData/Local/Google/Chrome/User Data',
  'AppData/Local/Chromium/User Data',
  'AppData/Local/Microsoft/Edge/User Data',
  'AppData/Local/BraveSoftware',
  'AppData/Local/Vivaldi',
  'AppData/Roaming/Mozilla/Firefox',
  'AppData/Roaming/Opera Software',
];
const PROTECTED_HOME_FILES = [
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.vault-token',
  '.config/git/credentials',
];
/** Names protected wherever they appear, in or out of a home folder (compared case-insensitively). */
const PROTECTED_NAMES = new Set([
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.azure',
  '.password-store',
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  '.vault-token',
]);

/** The protected folders and files under a home folder, as absolute paths in the home's own style. */
export function protectedHomeDirs(home: string): string[] {
  const p = styleOf(home);
  return [...PROTECTED_HOME_DIRS, ...PROTECTED_HOME_FILES].map((d) => p.join(home, d));
}

/** The keys agents put a tool call's working directory under (Codex `workdir`, most others `cwd`). */
const WORKDIR_KEYS = ['cwd', 'workdir', 'working_directory', 'workingDirectory', 'directory', 'dir'];

/**
 * The absolute folder a tool call runs in: `{cwd}` when it names none (its paths then resolve nowhere:
 * only absolute ones can be proven inside), `undefined` when it names one that cannot be known here: a
 * relative one, `~` forms, environment variables (`%USERPROFILE%`, `$HOME`), or two keys that disagree.
 */
export function workdirOf(rawInput: unknown): { cwd?: string } | undefined {
  if (!rawInput || typeof rawInput !== 'object') return {};
  const r = rawInput as Record<string, unknown>;
  const given = WORKDIR_KEYS.filter((k) => Object.hasOwn(r, k) && r[k] !== undefined && r[k] !== null);
  if (given.length === 0) return {};
  const values = new Set(given.map((k) => r[k]));
  const [cwd] = values;
  if (values.size > 1 || typeof cwd !== 'string') return undefined;
  if (/[%$~]/.test(cwd) || !(path.posix.isAbsolute(cwd) || isWindowsStyle(cwd))) return undefined;
  return { cwd };
}

export interface PathCheck {
  workspace: string;
  /** Where relative paths start; without it a relative path is never proven inside. */
  cwd?: string | undefined;
  protectedDirs: readonly string[];
  /** The read descends into folders (`rg`, `grep -r`, `find`, `du`). */
  recursive: boolean;
}

/** Whether every path lies inside the workspace and outside every protected folder. */
export function pathsAreSafe(paths: readonly string[], check: PathCheck): boolean {
  const p = styleOf(check.workspace);
  if (!p.isAbsolute(check.workspace)) return false;
  if (check.cwd !== undefined && styleOf(check.cwd) !== p) return false;
  const root = real(p.resolve(check.workspace));
  const protectedDirs = check.protectedDirs
    .flatMap((d) => (styleOf(d) === p ? [d] : p === path.posix ? wslFormOf(d) : []))
    .map((d) => foldDrvfs(real(p.resolve(d))));
  return paths.every((arg) => {
    if (arg.startsWith('-')) return false;
    if (check.cwd === undefined && !p.isAbsolute(arg)) return false;
    const written = check.cwd === undefined ? p.resolve(arg) : p.resolve(check.cwd, arg);
    // Windows drops a name's trailing dots and spaces when it opens it (`.ssh.` is `.ssh`, `...` is `.`):
    // such a name is never proven anything here.
    if (p === path.win32 && [arg, check.cwd ?? ''].some(hasTrimmedName)) return false;
    const target = real(written);
    if (!pathContains(root, target)) return false;
    const folded = foldDrvfs(target);
    if (protectedDirs.some((d) => pathContains(d, folded))) return false;
    // A recursive read of a folder that holds a protected one would read it too.
    if (check.recursive && protectedDirs.some((d) => pathContains(folded, d))) return false;
    // Credential folders by name, wherever the workspace is (as written and as resolved).
    return ![written, target].some((t) => hasProtectedName(p.relative(root, t)));
  });
}

/**
 * A Windows folder as a WSL agent reads it (`C:\\Users\\x\\.ssh` at `/mnt/c/Users/x/.ssh`, WSL's default
 * automount root): the tray's protected folders are the Windows host's, and a WSL agent's paths are POSIX.
 */
function wslFormOf(windowsPath: string): string[] {
  const drive = /^([A-Za-z]):[\\/]*(.*)$/.exec(windowsPath);
  return drive ? [path.posix.join('/mnt', drive[1]!.toLowerCase(), drive[2]!.replace(/\\/g, '/'))] : [];
}

/** A path on a Windows drive seen from WSL, in one case: that drive ignores case (`/mnt/c/USERS/x` is `/mnt/c/Users/x`). */
function foldDrvfs(posixPath: string): string {
  return /^\/mnt\/[a-z]\//i.test(posixPath) ? posixPath.toLowerCase() : posixPath;
}

/** A name Windows would open under another one: ending in a dot or a space (`.` and `..` aside). */
function hasTrimmedName(written: string): boolean {
  return written.split(/[\\/]+/).some((s) => s !== '.' && s !== '..' && /[. ]$/.test(s));
}

/**
 * Compared case-insensitively everywhere: Windows and macOS volumes ignore case, and so does a Windows drive
 * seen from WSL (`/mnt/c/Users/x/.SSH` is `.ssh`), which is compared as POSIX here.
 */
function hasProtectedName(relative: string): boolean {
  return relative.split(/[\\/]+/).some((s) => PROTECTED_NAMES.has(s.toLowerCase()));
}

/** The real path of a path of this machine's own kind; a path of the other kind is taken as written. */
function real(p: string): string {
  return isWindowsStyle(p) === (process.platform === 'win32') ? realPathOf(p) : p;
}

/** Windows paths (`C:\…`, `\\server\…`) are resolved as Windows does; everything else as POSIX. */
function styleOf(anyPath: string): typeof path.posix {
  return isWindowsStyle(anyPath) ? path.win32 : path.posix;
}
