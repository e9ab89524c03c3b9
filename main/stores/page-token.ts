/**
 * The opaque `pageToken` of `tasks/list`: base64url of the (status timestamp, task id) of the last task on
 * the previous page. A keyset cursor instead of an offset, so tasks changing between page requests never
 * cause a duplicate or a gap in the order they had.
 */
import { BridgeError } from '../domain/errors.js';

export interface PageCursor {
  /** `status.timestamp` of the last task already returned. */
  updatedAt: string;
  id: string;
}

export function encodePageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id]), 'utf8').toString('base64url');
}

/** Throws `invalid-params` for anything `encodePageToken` could not have produced. */
export function decodePageToken(token: string): PageCursor {
  const bytes = Buffer.from(token, 'base64url');
  // Node's base64url decoder skips characters it does not know; a token that does not survive the round
  // trip was not issued by us.
  if (bytes.toString('base64url') !== token) throw notIssued();
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw notIssued();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw notIssued();
  const [updatedAt, id] = parsed as unknown[];
  if (typeof updatedAt !== 'string' || typeof id !== 'string') throw notIssued();
  return { updatedAt, id };
}

function notIssued(): BridgeError {
  return new BridgeError('invalid-params', 'pageToken is not one this bridge issued');
}
