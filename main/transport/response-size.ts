/**
 * A bound on what one POST may answer (SECURITY.md#limits-at-a-glance-configyaml): a batch of `tasks/list` calls with
 * artifacts once took 3.8 GB and ended in a bare HTTP 500. Each reply is serialized once, here, as it is made; a reply
 * that would pass the bound (or that JSON.stringify cannot make at all) becomes a JSON-RPC error with the request's id,
 * and a batch stops growing once its replies reach the bound. `tasks/list` pages are cut short before that
 * (dispatcher.ts), so only a single oversized task reaches this error.
 */
import { RpcError } from './rpc-errors.js';

/** The largest JSON-RPC request count in one batch; more is refused whole (-32600). */
export const MAX_BATCH_REQUESTS = 100;

/** Room for a task's metadata and the JSON-RPC envelope, beyond its reply text and its messages. */
export const RESPONSE_ENVELOPE_BYTES = 64 * 1024;

/**
 * The largest response: one task whose reply reached `max_artifact_bytes`, with its messages (each at
 * most `max_body_bytes`, as it arrived) and its envelope, fits; a batch or page of many such does not.
 * The cap counts a file's decoded bytes while the reply carries them as base64, 4/3 as many:
 * the reply's share is sized for that.
 */
export function responseLimitFor(maxArtifactBytes: number, maxBodyBytes: number): number {
  return base64Length(maxArtifactBytes) + 2 * maxBodyBytes + RESPONSE_ENVELOPE_BYTES;
}

function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/**
 * JSON text of `value` (made by `stringify`), or undefined when it would be over `limit` bytes or cannot
 * be serialized.
 */
export function serializeWithin<T>(
  value: T,
  limit: number,
  stringify: (value: T) => string = JSON.stringify,
): string | undefined {
  let text: string;
  try {
    text = stringify(value);
  } catch {
    return undefined; // RangeError: the string would be over V8's maximum length
  }
  // UTF-8 is at most 3 bytes per UTF-16 unit: skip the exact count when it cannot matter.
  if (text.length * 3 <= limit) return text;
  return Buffer.byteLength(text) <= limit ? text : undefined;
}

export function responseTooLarge(limit: number): RpcError {
  return new RpcError(
    -32603,
    `the response would be over the ${limit}-byte limit (max_artifact_bytes as base64 + 2 × max_body_bytes + 64 KiB); ask for less: one task at a time, a smaller pageSize, historyLength, or includeArtifacts: false`,
    { limitBytes: limit },
  );
}
