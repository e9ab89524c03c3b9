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

/**
 * TaskNotFound (-32001) for every path that looks a task up (get, cancel, subscribe, answer, follow-up).
 * The words "task not found" lead: A2A clients and the v0.3 conformance kit match on "not found".
 */
export function taskNotFound(taskId: string): BridgeError {
  return new BridgeError(
    'task-not-found',
    `task not found: no task with id "${taskId}"; list recent tasks with tasks/list or \`contactor tasks\``,
    { taskId },
  );
}

/** UnknownAgent (-32060), the same words at `/` (metadata.agent) and at `/agents/<name>`. */
export function unknownAgent(name: string, known: readonly string[]): BridgeError {
  return new BridgeError(
    'unknown-agent',
    `no agent named "${name}"; configured agents: ${known.length ? known.join(', ') : '(none — add one to config.yaml)'}`,
    { agents: [...known] },
  );
}
