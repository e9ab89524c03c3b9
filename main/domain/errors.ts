/**
 * The two error kinds. A `BridgeError` is expected and safe to show: it names what went wrong in words a
 * person can act on; the transport maps its `reason` to a wire code. Anything else is internal: it never
 * crosses the wire (the transport answers with a correlation id and logs the details).
 */

export const BRIDGE_ERROR_REASONS = [
  'invalid-params',
  'task-not-found',
  'not-cancelable',
  'unsupported-operation',
  'unknown-agent',
  'idempotency-conflict',
  'already-answered',
  'pending-lost',
  'queue-full',
  'rate-limited',
  'unauthorized',
  'not-stored',
] as const;
export type BridgeErrorReason = (typeof BRIDGE_ERROR_REASONS)[number];

export class BridgeError extends Error {
  readonly reason: BridgeErrorReason;
  readonly data: Record<string, unknown> | undefined;

  constructor(reason: BridgeErrorReason, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = 'BridgeError';
    this.reason = reason;
    this.data = data;
  }
}

export function isBridgeError(err: unknown): err is BridgeError {
  return err instanceof BridgeError;
}
