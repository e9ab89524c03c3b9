/**
 * Opens the task database file and refuses, with a message a person can act on, a file that is not a
 * healthy SQLite database. A broken file is never reset silently: it may hold the only copy of tasks.
 *
 * Once SQLite has the file open, nothing else in this process may open it: closing any other fd on the
 * database drops all of the process's POSIX locks on it (sqlite.org/howtocorrupt.html §2.2). Another
 * SQLite client (a person's `sqlite3 contactor.db "select …"`, a backup) then believes it is alone,
 * checkpoints and deletes the WAL the bridge goes on committing into — and a kill -9 loses every task
 * since. So the files are inspected before SQLite opens them (wal-file.ts) or through SQLite itself.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { migrate } from './migrations.js';
import { readWal } from './wal-file.js';

export function openDatabase(file: string): Database.Database {
  // SQLite deletes the WAL when the last connection closes cleanly. One left behind means the last run
  // ended without closing (a crash, kill -9): only then is the full check worth reading the whole file
  // (~250 ms at 100,000 tasks); after a clean stop the b-tree roots are checked instead.
  const uncleanStop = existsSync(`${file}-wal`);
  if (uncleanStop) refuseLosingWal(file);
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (err) {
    throw new Error(
      `Cannot open the task database ${file}: ${messageOf(err)}. Check that its folder exists and is writable.`,
      {
        cause: err,
      },
    );
  }
  try {
    // Another bridge process mid-transaction makes us wait this long before SQLITE_BUSY.
    db.pragma('busy_timeout = 5000');
    // The first real read: a file that is not a database fails here with SQLITE_NOTADB.
    const check = uncleanStop ? String(db.pragma('quick_check', { simple: true })) : damagedRoot(db);
    if (check !== 'ok') throw brokenFile(file, firstProblem(check));
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL is durable against a process crash: a kill -9 loses nothing committed, because every
    // commit is in the WAL file before the call returns. Only an OS crash or power loss may lose the last
    // transactions (the WAL is fsynced at checkpoints, not per commit), and it never corrupts the file.
    db.pragma('synchronous = NORMAL');
    // Checkpoint every ~40 MB of WAL instead of SQLite's 4 MB: each checkpoint copies pages and fsyncs
    // twice, and with a commit per task state change it ran every few dozen tasks (bench: -13% CPU
    // per stored task). Under load a worker thread checkpoints long before this (wal-checkpointer.ts);
    // this is the writer's own fallback. Closing the store still checkpoints and removes the WAL.
    db.pragma('wal_autocheckpoint = 10000');
    db.pragma('foreign_keys = ON');
    migrate(db, file);
    return db;
  } catch (err) {
    db.close();
    if (isCorruption(err)) throw brokenFile(file, messageOf(err), err);
    if (err instanceof Error && err.message.includes(file)) throw err;
    throw new Error(`Cannot use the task database ${file}: ${messageOf(err)}`, { cause: err });
  }
}

function brokenFile(file: string, detail: string, cause?: unknown): Error {
  return new Error(
    `The task database ${file} is not a readable SQLite database (${detail}). Nothing was changed. ` +
      `Stop contactor, move the file aside, then restart to begin with an empty database: ` +
      `mv "${file}" "${file}.broken" (move "${file}-wal" and "${file}-shm" along with it if they exist).`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The cheap check after a clean stop: every table and index must start at a b-tree page (SQLite
 * file format §1.6: page type 2, 5, 10 or 13). SQLite's dbstat table reads each root page through
 * SQLite's own pager (LIMIT 1: the root is the first page it visits) and calls one that is not a
 * b-tree page "corrupted". "ok", or what is wrong.
 */
function damagedRoot(db: Database.Database): string {
  const roots = db.prepare('SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0').all() as {
    name: string;
    rootpage: number;
  }[];
  const rootType = db.prepare('SELECT pagetype FROM dbstat WHERE name = ? LIMIT 1').pluck();
  for (const { name, rootpage } of roots) {
    if (rootType.get(name) === 'corrupted') return `page ${rootpage} (the root of ${name}) is damaged`;
  }
  return 'ok';
}

/**
 * Refuses the two WALs whose replay SQLite would shorten without a word: an empty database file
 * beside a WAL that holds commits (SQLite deletes the WAL), and a damaged frame with committed
 * transactions after it (recovery stops at the damage). Runs before SQLite opens the file.
 */
function refuseLosingWal(file: string): void {
  const wal = `${file}-wal`;
  const report = readWal(wal);
  const moveAside =
    `or move all three aside to begin with an empty database: ` +
    `mv "${file}" "${file}.broken"; mv "${wal}" "${wal}.broken"; mv "${file}-shm" "${file}-shm.broken" (if it exists).`;
  if (report.lostCommits > 0) {
    const where = report.damagedFrame === 0 ? 'its header' : `frame ${report.damagedFrame}`;
    throw new Error(
      `The write-ahead log ${wal} of the task database is damaged at ${where}: opening it would silently drop ` +
        `${report.lostCommits} committed transaction(s) after the damage. Nothing was changed. Stop contactor and ` +
        `copy ${file}, ${wal} and ${file}-shm somewhere safe. Then either keep what comes before the damage: ` +
        `sqlite3 "${file}" "PRAGMA wal_checkpoint(TRUNCATE)" (SQLite's own command-line shell), ${moveAside}`,
    );
  }
  if (report.commits > 0 && fileSize(file) === 0) {
    throw new Error(
      `The task database ${file} is empty, but its write-ahead log ${wal} holds ${report.commits} committed ` +
        `transaction(s): opening it would delete that log and start with no tasks. Nothing was changed. Restore ` +
        `${file} from a backup (the file was truncated or replaced), ${moveAside}`,
    );
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // missing: SQLite would create it empty
  }
}

/** quick_check can list hundreds of damaged pages; the first one says enough. */
function firstProblem(report: string): string {
  const lines = report.split('\n').filter((line) => line.trim() !== '');
  const more = lines.length > 1 ? ` and ${lines.length - 1} more problems` : '';
  return `integrity check: ${lines[0] ?? report}${more}`;
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT'));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
