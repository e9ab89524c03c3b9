/**
 * User-only modes for everything in the data dir (SECURITY.md#threat-model): in a data dir that already existed
 * with mode 755, the database, its -wal/-shm and the log were created 0644 and another user read task
 * text from the WAL. The folder is made 0700 and every file 0600 at each start, whatever existed
 * before; the database file is created 0600 before SQLite opens it, since SQLite gives its -wal and -shm
 * the database's own mode. `contactor doctor` reports what is looser and fixes it.
 *
 * Windows: modes mean little; the per-user profile ACL protects %LOCALAPPDATA%. A WSL path on a Windows
 * drive (/mnt/c/...) ignores modes entirely (drvfs): `doctor` says so instead of pretending.
 */
import { chmodSync, closeSync, existsSync, openSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface LooseEntry {
  path: string;
  mode: number;
}

/** Whether file modes protect anything in `dir` on this system. */
export function modesApply(dir: string, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32' && !/^\/mnt\/[a-z]\//i.test(dir);
}

/** Every entry under `dir` (itself included) readable or writable by anyone but the owner. */
export function looseEntries(dir: string): LooseEntry[] {
  const found: LooseEntry[] = [];
  const visit = (p: string): void => {
    let mode: number;
    let isDir: boolean;
    try {
      const st = statSync(p);
      mode = st.mode & 0o777;
      isDir = st.isDirectory();
    } catch {
      return; // removed while we looked
    }
    if ((mode & 0o077) !== 0) found.push({ path: p, mode });
    if (isDir) for (const name of safeList(p)) visit(path.join(p, name));
  };
  if (existsSync(dir)) visit(dir);
  return found;
}

/** Folders 0700, files 0600, under `dir`. Returns what it changed. Never throws for one entry. */
export function restrictDataDir(dir: string): LooseEntry[] {
  if (!modesApply(dir)) return [];
  const loose = looseEntries(dir);
  for (const entry of loose) {
    try {
      chmodSync(entry.path, statSync(entry.path).isDirectory() ? 0o700 : 0o600);
    } catch {
      // gone, or not ours: doctor reports what is left
    }
  }
  return loose;
}

/** Creates `file` empty with mode 0600 when it does not exist (before a library creates it 0644). */
export function createPrivateFile(file: string): void {
  if (existsSync(file)) return;
  try {
    closeSync(openSync(file, 'a', 0o600));
  } catch {
    // the library that opens it next reports the problem in its own words
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
