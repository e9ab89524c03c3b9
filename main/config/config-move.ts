/**
 * Moves a config.yaml from a former default location to the current one (docs/contract.md#files-and-places):
 * on Windows the default used to be %APPDATA%\contactor\config.yaml, the folder electron-builder's uninstaller
 * deletes on `--delete-app-data` (app-builder-lib templates/nsis/uninstaller.nsh: `RMDir /r
 * "$APPDATA\${APP_FILENAME}"`). A user's config is never lost and never overwritten:
 * - the new file appears whole or not at all (a copy to a temp name beside it, then a hard link to the final
 *   name, which fails if that name exists: a second process moving at the same moment, or a file the user made);
 * - an existing config at the new place always wins; the old one is left as it is, so an older version (or a
 *   downgrade) still finds it, and a note beside it says it is no longer read and where the config went;
 * - when the copy cannot be made (the old file unreadable, the new folder not writable), the caller keeps
 *   reading the old file, as before the move, and says why.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

export type ConfigMove =
  { kind: 'copied'; from: string; to: string } | { kind: 'failed'; from: string; to: string; reason: string };

/** The note left beside the old config. */
export const MOVED_NOTE = 'config.yaml-MOVED.txt';

/** Copies `from` to `to` when only `from` exists; undefined when there was nothing to do. */
export function moveLegacyConfig(from: string, to: string): ConfigMove | undefined {
  if (existsSync(to) || !existsSync(from)) return undefined;
  const temp = `${to}.moving-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, temp, constants.COPYFILE_EXCL);
    chmodSync(temp, 0o600);
    try {
      linkSync(temp, to);
    } catch (err) {
      // Another start moved it first, or the user just made one: theirs stands.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw err;
    }
  } catch (err) {
    // Node's words up to the paths ("EISDIR: illegal operation on a directory"): the temp name would make each
    // attempt's message a different one.
    return { kind: 'failed', from, to, reason: (err as Error).message.split(', ')[0]! };
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Never made, or already gone.
    }
  }
  leaveNote(from, to);
  return { kind: 'copied', from, to };
}

function leaveNote(from: string, to: string): void {
  const note =
    `This config.yaml is no longer read: contactor now reads ${to}\r\n` +
    `(this folder is deleted by an uninstall with --delete-app-data). It was copied there on ` +
    `${new Date().toISOString()} and is kept as it was for older versions; edit the new file.\r\n`;
  try {
    writeFileSync(path.join(path.dirname(from), MOVED_NOTE), note, { mode: 0o600 });
  } catch {
    // The note is a courtesy: the move itself is done and reported.
  }
}

/** One line for the log or the terminal. */
export function describeConfigMove(move: ConfigMove): string {
  return move.kind === 'copied'
    ? `config moved: copied ${move.from} to ${move.to}, which is read from now on (an uninstall with --delete-app-data deletes the old folder); the old file is kept, with a note beside it`
    : `could not copy the config ${move.from} to ${move.to} (${move.reason}); still reading ${move.from}, which an uninstall with --delete-app-data deletes: copy it there yourself`;
}
