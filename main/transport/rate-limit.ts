/**
 * Requests per minute per caller (`rate_limit_per_minute`), checked before dispatch. The caller is the
 * identity its bearer token proves (caller-tokens.ts: the install token, or one agent's derived token),
 * else the remote address when no token is required; never a request parameter, so no caller can pick
 * its own bucket. Every request of a batch is charged, and so is every request a guarded route serves
 * (`/mcp`, the event feed) and every JSON-RPC call `/mcp`'s tools make in-process: one bucket per caller,
 * whichever way in (docs/architecture.md#choke-points).
 *
 * A token bucket per caller: a full minute's worth may arrive at once, then they refill evenly.
 */
import type { ParsedBody } from './rpc-types.js';

export interface RateLimitOptions {
  perMinute: number;
  now?: () => number;
}

export type RateVerdict =
  | { ok: true; caller: string }
  | { ok: false; caller: string; retryAfterMs: number; retryAfterS: number; message: string };

interface Bucket {
  tokens: number;
  at: number;
}

const MINUTE_MS = 60_000;
/** Past this many callers, buckets that have refilled completely are forgotten (they hold no state). */
const PRUNE_AT = 1000;

export class CallerRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(private readonly opts: RateLimitOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Charges every request of the parsed body to `caller` (a bucket name, see caller-tokens.ts bucketOf).
   * A batch larger than a whole minute's worth can never pass: it is refused with the time a full
   * bucket would need, and charges nothing.
   */
  check(body: ParsedBody, caller: string): RateVerdict {
    return this.charge(caller, requestCount(body));
  }

  /** Charges `cost` requests to `caller`: a guarded route's request, or one call `/mcp`'s tools make in-process. */
  charge(caller: string, cost = 1): RateVerdict {
    const retryAfterMs = this.take(caller, cost);
    if (retryAfterMs === 0) return { ok: true, caller };
    const retryAfterS = Math.ceil(retryAfterMs / 1000);
    const message = `too many requests from ${caller}; retry in ${retryAfterS} s (rate_limit_per_minute)`;
    return { ok: false, caller, retryAfterMs, retryAfterS, message };
  }

  /** 0 when allowed, else how long until `cost` tokens are there. */
  private take(caller: string, cost: number): number {
    const now = this.now();
    const perMs = this.opts.perMinute / MINUTE_MS;
    const bucket = this.buckets.get(caller) ?? { tokens: this.opts.perMinute, at: now };
    bucket.tokens = Math.min(this.opts.perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(caller, bucket);
    if (this.buckets.size > PRUNE_AT) this.forgetIdle(now, perMs);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((cost - bucket.tokens) / perMs));
  }

  private forgetIdle(now: number, perMs: number): void {
    for (const [caller, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * perMs >= this.opts.perMinute) this.buckets.delete(caller);
    }
  }
}

/** How many requests a body holds: each element of a batch, else one. */
export function requestCount(body: ParsedBody): number {
  return body.json && Array.isArray(body.value) ? Math.max(1, body.value.length) : 1;
}
