/**
 * BridgeRpc inside the bridge (`/mcp`): each call goes to the JSON-RPC endpoint the HTTP edge uses, as the
 * identity the request gate proved, so the endpoint's authority check and the dispatcher's chain apply as
 * to a POST, and each is charged to the caller's rate-limit bucket as a POST is (transport/rate-limit.ts;
 * docs/architecture.md#choke-points).
 */
import type { Identity } from '../../domain/authority.js';
import type { JsonRpcEndpoint } from '../../transport/jsonrpc.js';
import type { CallerRateLimit } from '../../transport/rate-limit.js';
import type { RpcCall } from '../../transport/rpc-types.js';
import { BridgeRpcError, type BridgeRpc } from './bridge-rpc.js';

type Endpoint = Pick<JsonRpcEndpoint, 'handle'>;

/** The caller's rate-limit bucket (caller-tokens.ts bucketOf) and the limiter the HTTP edge charges too. */
export interface RateCharge {
  limit: Pick<CallerRateLimit, 'charge'>;
  bucket: string;
}

/** -32065, the bridge's code for too many requests (transport/rpc-errors.ts). */
const RATE_LIMITED = -32065;

export function createInProcessRpc(endpoint: Endpoint, identity: Identity, rate?: RateCharge): BridgeRpc {
  let nextId = 1;
  const call: RpcCall = {
    version: '0.3',
    identity,
    ...(identity.kind === 'agent' ? { callerAgent: identity.agent } : {}),
  };
  const request = (method: string, params: unknown) => {
    const verdict = rate?.limit.charge(rate.bucket);
    if (verdict && !verdict.ok)
      throw new BridgeRpcError(RATE_LIMITED, verdict.message, { retryAfterMs: verdict.retryAfterMs });
    return {
      json: true as const,
      value: { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) },
    };
  };
  return {
    async call(method, params) {
      const outcome = await endpoint.handle(request(method, params), call);
      if (outcome.kind === 'stream') {
        outcome.reply.start(
          () => undefined,
          () => undefined,
        )();
        throw new BridgeRpcError(-32603, `${method} answered with a stream`);
      }
      // `text` is the reply as the HTTP edge would send it (a stored task's JSON text included).
      const reply = (
        outcome.kind === 'json' && outcome.text !== undefined ? JSON.parse(outcome.text) : outcome.body
      ) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
      if (reply.error) throw new BridgeRpcError(reply.error.code, reply.error.message, reply.error.data);
      return reply.result;
    },
    async stream(method, params, onResult, signal) {
      const outcome = await endpoint.handle(request(method, params), call);
      if (outcome.kind !== 'stream') {
        const reply = (
          outcome.kind === 'json' && outcome.text !== undefined ? JSON.parse(outcome.text) : outcome.body
        ) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
        if (reply?.error) throw new BridgeRpcError(reply.error.code, reply.error.message, reply.error.data);
        onResult(reply?.result);
        return;
      }
      await new Promise<void>((resolve) => {
        // `start` may end the stream before it returns (a replay that reaches the end), as in rpc-post.ts.
        const handle: { stop?: () => void; ended: boolean } = { ended: false };
        const end = (): void => {
          if (handle.ended) return;
          handle.ended = true;
          signal?.removeEventListener('abort', end);
          handle.stop?.();
          resolve();
        };
        handle.stop = outcome.reply.start((result) => onResult(result), end);
        if (handle.ended) handle.stop();
        else signal?.addEventListener('abort', end, { once: true });
      });
    },
  };
}
