/**
 * User-only modes for everything in the data dir (SECURITY.md#threat-model): in a data dir that already existed
 * with mode 755, the database, its -wal/-shm and the log were created 0644 and another user read task
 * text from the WAL. The folder is made 0700 and every file 0600 at each start, whatever existed
 * before; the database file is created 0600 before SQLite opens it, since SQLite gives its -wal and -shm
 * the database's own mode. `contactor doctor` reports what is looser and fixes it.
 *
 * Links are never followed below the data dir (the data dir itself is followed: the person named it). An agent
 * runs as the person and can plant a symlink among the bridge's files; `chmod` follows links, and a symlinked
 * folder pointing at a project once made its 0755 scripts 0600. So entries are looked at with lstat, a link
 * is neither entered nor changed, and a mode is changed on an open handle (O_NOFOLLOW, then fchmod) whose
 * identity is the one lstat saw, so a link swapped in after the look changes nothing either. A file with a
 * second name (a hard link, which shares its mode) is left alone too: `doctor` still names it.
 *
 * Windows: modes mean little; the per-user profile ACL protects %LOCALAPPDATA%, and nothing here changes a
 * mode there. A WSL path on a Windows drive (/mnt/c/..., also when reached through a symlink) ignores modes
 * entirely (drvfs): `doctor` says so instead of pretending.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  statSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { pathContains, realPathOf } from '../platform/path-containment.js';

export interface LooseEntry {
  path: string;
  mode: number;
}

/** Where WSL mounts the Windows drives (drvfs, the default automount root): file modes are not kept there. */
const WINDOWS_DRIVES = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((drive) => `/mnt/${drive}`);

/** Whether file modes protect anything in `dir` on this system. */
export function modesApply(dir: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return false;
  const real = realPathOf(dir);
  return !WINDOWS_DRIVES.some((drive) => pathContains(drive, dir) || pathContains(drive, real));
}

/**
 * Every entry under `dir` (itself included) readable or writable by anyone but the owner. A link below `dir` is
 * neither reported (its own mode means nothing) nor entered.
 */
export function looseEntries(dir: string): LooseEntry[] {
  return entriesOf(dir)
    .filter(({ stats }) => (stats.mode & 0o077) !== 0)
    .map(({ path: p, stats }) => ({ path: p, mode: stats.mode & 0o777 }));
}

/** Folders 0700, files 0600, under `dir`; links left alone. Returns what it changed. Never throws for one entry. */
export function restrictDataDir(dir: string): LooseEntry[] {
  if (!modesApply(dir)) return [];
  const changed: LooseEntry[] = [];
  for (const entry of entriesOf(dir)) {
    if ((entry.stats.mode & 0o077) === 0) continue;
    try {
      if (restrict(entry)) changed.push({ path: entry.path, mode: entry.stats.mode & 0o777 });
    } catch {
      // gone, or not ours: doctor reports what is left
    }
  }
  return changed;
}

/** Creates `file` empty with mode 0600 when it does not exist (before a library creates it 0644). */
export function createPrivateFile(file: string): void {
  try {
    // O_EXCL: an existing file is left as it is, and a link there (even a dangling one) is never followed.
    closeSync(openSync(file, 'wx', 0o600));
  } catch {
    // it exists, or the library that opens it next reports the problem in its own words
  }
}

interface Entry {
  path: string;
  /** From lstat (the data dir itself: from stat). */
  stats: Stats;
}

/** `dir` (followed) and every file and folder below it, links not entered. */
function entriesOf(dir: string): Entry[] {
  const found: Entry[] = [];
  const visit = (p: string, stats: Stats): void => {
    if (!stats.isFile() && !stats.isDirectory()) return; // a link, a FIFO, a socket: nothing of ours to change
    found.push({ path: p, stats });
    if (!stats.isDirectory()) return;
    for (const name of safeList(p)) {
      const child = path.join(p, name);
      const info = lstatOrUndefined(child);
      if (info) visit(child, info);
    }
  };
  let root: Stats | undefined;
  try {
    root = statSync(dir);
  } catch {
    return found; // no data dir yet
  }
  visit(dir, root);
  return found;
}

/** 0700 or 0600 on the entry lstat saw, never on anything else a link there now leads to. False: left as it was. */
function restrict(entry: Entry): boolean {
  const mode = entry.stats.isDirectory() ? 0o700 : 0o600;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in after the look must not hang the start.
    fd = openSync(entry.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    // A file or folder its owner may not read cannot be opened; the same identity, just looked at, is
    // changed by path (a link swapped in between these two calls is the one case left).
    const now = lstatOrUndefined(entry.path);
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' || !sameEntry(now, entry.stats) || hasOtherName(now!)) {
      return false;
    }
    chmodSync(entry.path, mode);
    return true;
  }
  try {
    const opened = fstatSync(fd);
    // A file with another name (a hard link) may be someone else's file under that name: left as it is.
    if (!sameEntry(opened, entry.stats) || hasOtherName(opened)) return false;
    fchmodSync(fd, mode);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** A file with a second name (a hard link); a folder's link count counts its subfolders instead. */
function hasOtherName(stats: Stats): boolean {
  return stats.isFile() && stats.nlink > 1;
}

function sameEntry(now: Stats | undefined, seen: Stats): boolean {
  return (
    now !== undefined &&
    now.dev === seen.dev &&
    now.ino === seen.ino &&
    now.isDirectory() === seen.isDirectory() &&
    (now.isFile() || now.isDirectory())
  );
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined; // removed while we looked
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
