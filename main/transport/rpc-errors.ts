import type { z } from 'zod';
import type { BridgeErrorReason } from '../domain/errors.js';

export const REASON_CODES: Record<BridgeErrorReason, number> = {
  'invalid-params': -32602,
  'task-not-found': -32001,
  'not-cancelable': -32002,
  'unsupported-operation': -32004,
  'unknown-agent': -32060,
  'idempotency-conflict': -32061,
  'already-answered': -32062,
  'pending-lost': -32063,
  'queue-full': -32064,
  'rate-limited': -32065,
  unauthorized: -32066,
  'not-stored': -32069,
};

/** google.rpc.ErrorInfo reasons for v1 errors (A2A v1 §9: errors carry an ErrorInfo in `data`). */
const V1_REASONS: Record<number, string> = {
  [-32700]: 'PARSE_ERROR',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_PARAMS',
  [-32603]: 'INTERNAL_ERROR',
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
  [-32060]: 'UNKNOWN_AGENT',
  [-32061]: 'IDEMPOTENCY_CONFLICT',
  [-32062]: 'ALREADY_ANSWERED',
  [-32063]: 'PENDING_LOST',
  [-32064]: 'QUEUE_FULL',
  [-32065]: 'RATE_LIMITED',
  [-32066]: 'UNAUTHORIZED',
  [-32069]: 'NOT_STORED',
};

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** An error answered on the wire; its message is safe to show. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A zod failure as one readable line naming each field: "params.message.parts: must not be empty". */
export function describeZodError(error: z.ZodError, root = 'params'): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

export function errorBody(err: RpcError, version: '0.3' | '1.0'): RpcErrorBody {
  if (version === '0.3') return { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) };
  const info = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: V1_REASONS[err.code] ?? 'UNKNOWN',
    domain: 'a2a-protocol.org',
    metadata: Object.fromEntries(
      Object.entries(err.data ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    ),
  };
  return { code: err.code, message: err.message, data: [info] };
}
