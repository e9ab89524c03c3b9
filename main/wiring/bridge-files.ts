/**
 * The bridge's own files in its data dir, opened in an order that refuses a second bridge before it
 * touches anything: the dir (user-only), the database file (created private), the instance lock, then the
 * install token and the log. Whatever fails after the lock releases it.
 */
import path from 'node:path';
import { createLogger, type BridgeLogger } from '../audit/logging.js';
import { createPrivateFile, restrictDataDir } from '../config/data-dir-modes.js';
import { acquireInstanceLock, ensureDataDir, loadOrCreateToken } from '../config/data-dir.js';
import { openOwnFileForAppend } from '../platform/protected-files.js';

export interface BridgeFiles {
  /** The install token, when the bridge requires one. */
  secret: string | undefined;
  /**
   * The install token and every agent's derived token: never in a log, an audit entry or a task. Agents'
   * tokens join it as their backends are built (at start and on every reload).
   */
  bridgeSecrets: string[];
  log: BridgeLogger;
  /** Closes the log and releases the lock: at shutdown, or when the bridge could not be built. */
  close(): void;
}

export function databaseFile(dataDir: string): string {
  return path.join(dataDir, 'contactor.db');
}

export function openBridgeFiles(dataDir: string, tokenRequired: boolean): BridgeFiles {
  ensureDataDir(dataDir);
  restrictDataDir(dataDir);
  createPrivateFile(databaseFile(dataDir));
  const releaseLock = acquireInstanceLock(dataDir);
  try {
    const secret = tokenRequired ? loadOrCreateToken(dataDir) : undefined;
    const bridgeSecrets: string[] = secret ? [secret] : [];
    // Never through a link an agent planted in the data dir: a planted bridge.log stops the start, naming it.
    const log = createLogger(
      dataDir,
      () => bridgeSecrets,
      (file) => openOwnFileForAppend(dataDir, file),
    );
    return {
      secret,
      bridgeSecrets,
      log,
      close: () => {
        log.close();
        releaseLock();
      },
    };
  } catch (err) {
    releaseLock();
    throw err;
  }
}
