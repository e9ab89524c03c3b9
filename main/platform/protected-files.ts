/**
 * The bridge's own files (config file, data dir: token, database, logs, audit log), recognised however an
 * agent names them. A folder check on the path as written is not enough: the config file may be a symlink
 * into the agent's workspace (GNU stow, dotfile managers), and a hard link in the workspace is the token
 * file under another name. So a path is the bridge's when its real path lies in a protected folder or is a
 * protected file's real path, and an open file is the bridge's when its identity (device + file number) is
 * one of theirs: st_dev/st_ino on POSIX, the volume serial number and file index on Windows (libuv fills
 * `dev`/`ino` from them), which a hard link shares. Real paths are taken at each check, so a link re-pointed
 * after start is followed.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathContains, realPathOf } from './path-containment.js';

/** Entries looked at below a protected folder: the data dir holds a few dozen files; a bound keeps a check cheap. */
const MAX_ENTRIES = 2000;
const MAX_DEPTH = 4;

export class ProtectedFiles {
  /** `paths`: the bridge's folders and files, as configured (symlinks allowed). */
  constructor(readonly paths: readonly string[]) {}

  /** The protected paths as real paths, now (a missing one as written, resolved). */
  async realPaths(): Promise<string[]> {
    return Promise.all(this.paths.map((p) => realpath(p).catch(() => path.resolve(p))));
  }

  /** Whether a real path lies in (or is) one of the bridge's folders or files. */
  async holdsPath(realTarget: string): Promise<boolean> {
    return (await this.realPaths()).some((own) => pathContains(own, realTarget));
  }

  /** Whether the file `stats` describes (from fstat of an open handle, `bigint: true`) is one of the bridge's. */
  async holdsFile(stats: BigIntStats): Promise<boolean> {
    for await (const own of this.identities()) {
      if (own.dev === stats.dev && own.ino === stats.ino) return true;
    }
    return false;
  }

  private async *identities(): AsyncGenerator<BigIntStats> {
    let budget = MAX_ENTRIES;
    const walk = async function* (dir: string, depth: number): AsyncGenerator<BigIntStats> {
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if ((budget -= 1) < 0) return;
        const entry = path.join(dir, name);
        const info = await lstat(entry, { bigint: true }).catch(() => undefined);
        if (info?.isFile()) yield info;
        else if (info?.isDirectory() && depth < MAX_DEPTH) yield* walk(entry, depth + 1);
      }
    };
    for (const own of this.paths) {
      // The protected path itself is followed (the config file may be a symlink); entries below are not.
      const info = await stat(own, { bigint: true }).catch(() => undefined);
      if (info?.isFile()) yield info;
      else if (info?.isDirectory()) yield* walk(own, 1);
    }
  }
}

/**
 * Opens `file`, one of the bridge's own files below `folder` (the data dir), to append to it; created 0600 (and
 * its folders 0700) when missing. Returns the descriptor. An agent runs as the person and can plant links among
 * the bridge's files, so nothing is ever written through one; this throws, naming the file, when:
 * - the file's folder, by real path, is not inside `folder`'s (a symlinked or junctioned `logs/` leading out);
 * - the file is a link: refused by O_NOFOLLOW where the system has it (POSIX); where it has not (Windows, where
 *   `constants.O_NOFOLLOW` is undefined and opening follows links), by lstat of the path after the open, which
 *   must name the very file the handle holds (device + file number), so a link there before or during the
 *   open is caught;
 * - the opened file is not a plain file (a FIFO is refused without waiting for a reader), or has another name (a hard link to a file outside: `nlink` > 1;
 *   Windows reports the NTFS link count there too).
 * A folder swapped for a link between the folder check and the open is not caught (SECURITY.md#what-each-platform-covers-paths-and-files).
 */
export function openOwnFileForAppend(folder: string, file: string): number {
  const parent = path.dirname(file);
  const refuse = (why: string): Error =>
    new Error(`${file}: not written, ${why}; remove it, the bridge creates the file again`);
  const inside = (): boolean => {
    // Both sides resolved the same way, so a Windows short name (RUNNER~1) stays comparable: one system call each
    // where the folder exists (every write asks), path-containment.ts `realPathOf` where it is still to be made.
    try {
      return pathContains(realpathSync.native(folder), realpathSync.native(parent));
    } catch {
      return pathContains(realPathOf(folder), realPathOf(parent));
    }
  };
  if (!inside()) throw refuse(`its folder leads out of ${folder} (a link)`);
  if (!lstatOrUndefined(parent)) mkdirSync(parent, { recursive: true, mode: 0o700 });
  // O_NONBLOCK: opening a FIFO an agent put in the log's place would otherwise wait for a reader, and this
  // open is synchronous (the whole bridge would wait); with it, no reader fails ENXIO. A plain file ignores it.
  const flags =
    constants.O_WRONLY |
    constants.O_APPEND |
    constants.O_CREAT |
    (constants.O_NOFOLLOW ?? 0) |
    (constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = openSync(file, flags, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse('it is a link');
    if (code === 'ENXIO') throw refuse('it is not a plain file');
    throw err;
  }
  try {
    const opened = fstatSync(fd);
    const named = lstatOrUndefined(file);
    if (!named || named.isSymbolicLink() || named.dev !== opened.dev || named.ino !== opened.ino) {
      throw refuse('it is a link');
    }
    if (!opened.isFile()) throw refuse('it is not a plain file');
    if (opened.nlink > 1) throw refuse('it has another name (a hard link)');
    if (!inside()) throw refuse(`its folder leads out of ${folder} (a link)`);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Reads one of the bridge's small files in its data dir (the token, the discovery file, a lock's pid) without
 * ever waiting: an agent can put a FIFO in its place, whose read would wait for a writer and stop a
 * synchronous start or CLI for good. Undefined when the path is not a plain file; a missing file throws
 * as readFileSync does.
 */
export function readOwnFile(file: string): string | undefined {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } finally {
    closeSync(fd);
  }
}
