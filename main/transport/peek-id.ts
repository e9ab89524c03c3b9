/**
 * The `id` of a JSON-RPC POST that is refused before it is dispatched (no or a wrong token, an unknown
 * agent), so the refusal answers with the caller's own id as JSON-RPC 2.0 §5 asks, instead of `null`.
 *
 * Reading a body before the token is checked is safe within these bounds (docs/contract.md#error-codes):
 * - at most `PEEK_LIMIT_BYTES` (or the configured body limit when lower) are read; a longer body, or one
 *   that does not arrive within the server's request timeout, gets `id: null` and its connection closed;
 * - the connections that can do this are the unproven ones the connection guard already bounds (its
 *   small budget, oldest dropped first), so the memory held at once is bounded too;
 * - nothing in the body is acted on: only a top-level string or number `id` is read back to the same
 *   caller, who sent it; batches and anything unparsable get `null`.
 */
import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { idOf } from './jsonrpc.js';

/** A JSON-RPC request a client retries with a wrong token is small; a larger body is not read for its id. */
export const PEEK_LIMIT_BYTES = 64 * 1024;

export interface PeekedId {
  id: string | number | null;
  /** Whether the whole body was read; when not, the refusal closes the connection (nothing to drain). */
  read: boolean;
}

export async function peekRequestId(req: IncomingMessage, maxBodyBytes: number): Promise<PeekedId> {
  const limit = Math.min(PEEK_LIMIT_BYTES, maxBodyBytes);
  // An announced length over the limit is refused before a byte is read (raw-body checks `length`).
  const announced = Number(req.headers['content-length']);
  let text: string;
  try {
    text = await getRawBody(req, { limit, encoding: 'utf8', ...(announced >= 0 ? { length: announced } : {}) });
  } catch {
    return { id: null, read: false };
  }
  try {
    return { id: idOf(JSON.parse(text) as unknown), read: true };
  } catch {
    return { id: null, read: true };
  }
}
