/**
 * The -32600 answer to a body that is not a JSON-RPC 2.0 request (JSON-RPC 2.0 §4, §5.1;
 * docs/contract.md#error-codes): it names each field that is wrong and shows a request that works.
 * A missing `id` is never one of them: a request without one is a notification, which is valid and
 * gets no reply (HTTP 204).
 */
import { RpcError } from './rpc-errors.js';

/** Where JsonRpcRequestSchema (main/schema/rpc.ts, the one envelope schema) found a field wrong. */
export interface EnvelopeIssue {
  path: readonly PropertyKey[];
}

/** What each envelope field must be, in the order a person reads a request. */
const FIELD_RULES = {
  jsonrpc: '"jsonrpc" must be "2.0"',
  method: '"method" must be a non-empty string naming the method',
  id: '"id" must be a string or a number (without "id" the request is a notification and gets no reply)',
} as const;

const EXAMPLE = 'send {"jsonrpc": "2.0", "id": 1, "method": "<method>", "params": {…}}';

export function invalidRequest(raw: unknown, issues: readonly EnvelopeIssue[]): RpcError {
  return new RpcError(-32600, `invalid JSON-RPC 2.0 request: ${problems(raw, issues).join('; ')}; ${EXAMPLE}`);
}

function problems(raw: unknown, issues: readonly EnvelopeIssue[]): string[] {
  if (Array.isArray(raw)) return ['it is an array, not an object (a batch cannot hold another batch)'];
  if (raw === null || typeof raw !== 'object') return [`it is ${kindOf(raw)}, not an object`];
  const wrong = new Set(issues.map((issue) => issue.path[0]));
  return Object.entries(FIELD_RULES)
    .filter(([field]) => wrong.has(field))
    .map(([, rule]) => rule);
}

function kindOf(raw: unknown): string {
  if (raw === null) return 'null';
  return typeof raw === 'number' ? 'a number' : typeof raw === 'boolean' ? 'a boolean' : 'a string';
}
