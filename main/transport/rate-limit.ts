/**
 * Requests per minute per caller (`rate_limit_per_minute`), checked before dispatch. A caller is an agent
 * the bridge knows, named by the request's `callerAgent` (the CLI sends it from CONTACTOR_AGENT), else the
 * remote address. Only configured agent names count as identities, so a client cannot dodge the limit by
 * inventing a new `callerAgent` per request, and the table stays as small as agents + addresses.
 *
 * A token bucket per caller: a full minute's worth may arrive at once, then they refill evenly.
 */
import type { ParsedBody } from './rpc-types.js';

export interface RateLimitOptions {
  perMinute: number;
  isAgent(name: string): boolean;
  now?: () => number;
}

export type RateVerdict = { ok: true; caller: string } | { ok: false; caller: string; retryAfterMs: number };

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

  /** Counts one request (or each request of a batch) of the parsed body against its caller. */
  check(body: ParsedBody, remoteAddress: string): RateVerdict {
    const { agent, requests } = callerOf(body, this.opts.isAgent);
    const caller = agent ? `agent:${agent}` : `address:${remoteAddress}`;
    const retryAfterMs = this.take(caller, Math.min(requests, this.opts.perMinute));
    return retryAfterMs === 0 ? { ok: true, caller } : { ok: false, caller, retryAfterMs };
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

/** The `callerAgent` a request names (first one found in a batch) and how many requests it holds. */
export function callerOf(body: ParsedBody, isAgent: (name: string) => boolean): { agent?: string; requests: number } {
  if (!body.json) return { requests: 1 };
  const items = Array.isArray(body.value) ? body.value : [body.value];
  for (const item of items) {
    const named = declaredCaller(item);
    if (named !== undefined && isAgent(named)) return { agent: named, requests: Math.max(1, items.length) };
  }
  return { requests: Math.max(1, items.length) };
}

function declaredCaller(request: unknown): string | undefined {
  const params = field(request, 'params');
  const candidates = [
    field(params, 'callerAgent'),
    field(field(params, 'metadata'), 'callerAgent'),
    field(field(field(params, 'message'), 'metadata'), 'callerAgent'),
  ];
  return candidates.find((c): c is string => typeof c === 'string');
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
