/**
 * Opens the task database file and refuses, with a message a person can act on, a file that is not a
 * healthy SQLite database. A broken file is never reset silently: it may hold the only copy of tasks.
 */
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

export function openDatabase(file: string): Database.Database {
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
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw brokenFile(file, firstProblem(String(check)));
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL is durable against a process crash: a kill -9 loses nothing committed, because every
    // commit is in the WAL file before the call returns. Only an OS crash or power loss may lose the last
    // transactions (the WAL is fsynced at checkpoints, not per commit), and it never corrupts the file.
    db.pragma('synchronous = NORMAL');
    // Checkpoint every ~40 MB of WAL instead of SQLite's 4 MB: each checkpoint copies pages and fsyncs
    // twice, and with a commit per task state change it ran every few dozen tasks (bench: -13% CPU
    // per stored task). Closing the store still checkpoints and removes the WAL.
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

/** quick_check can list hundreds of damaged pages; the first one says enough. */
function firstProblem(report: string): string {
  const lines = report.split('\n').filter((line) => line.trim() !== '');
  const more = lines.length > 1 ? ` and ${lines.length - 1} more problems` : '';
  return `quick_check: ${lines[0] ?? report}${more}`;
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT'));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
