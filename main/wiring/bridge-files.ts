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
  /**
   * Adds an external agent's token the bridge has verified (caller-tokens.ts) to `bridgeSecrets`: external
   * names are not known in advance, so each token joins as it is first proven. At most
   * MAX_REMEMBERED_EXTERNAL_TOKENS are kept, the longest-known forgotten first.
   */
  rememberExternalToken(token: string): void;
  log: BridgeLogger;
  /** Closes the log and releases the lock: at shutdown, or when the bridge could not be built. */
  close(): void;
}

/** External agents' tokens kept among the secrets at most (SECURITY.md#the-token). */
export const MAX_REMEMBERED_EXTERNAL_TOKENS = 256;

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
    const external: string[] = [];
    const rememberExternalToken = (token: string): void => {
      if (external.includes(token)) return;
      external.push(token);
      bridgeSecrets.push(token);
      if (external.length <= MAX_REMEMBERED_EXTERNAL_TOKENS) return;
      const forgotten = external.shift()!;
      bridgeSecrets.splice(bridgeSecrets.indexOf(forgotten), 1);
    };
    return {
      secret,
      bridgeSecrets,
      rememberExternalToken,
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
