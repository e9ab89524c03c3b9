import { describe, expect, it } from 'vitest';
import { bucketOf, CallerTokens, deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { CallerRateLimit, requestCount } from '../../main/transport/rate-limit.js';
import { parseBody } from '../../main/transport/rpc-types.js';

const request = (callerAgent?: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { agent: 'echo', text: 'x', ...(callerAgent ? { callerAgent } : {}) },
});
/** The body as the adapter hands it over: parsed once (see rpc-post.ts). */
const send = (callerAgent?: string) => parseBody(JSON.stringify(request(callerAgent)));
const batchOf = (n: number) => parseBody(JSON.stringify(Array.from({ length: n }, () => request())));

describe('CallerRateLimit', () => {
  it('forgets callers whose bucket has refilled once more than 1,000 are known (white-box: the buckets map)', () => {
    let now = 0;
    const limit = new CallerRateLimit({ perMinute: 60, now: () => now });
    const known = () => (limit as unknown as { buckets: Map<string, unknown> }).buckets.size;
    for (let i = 0; i < 1001; i += 1) limit.check(send(), `caller-${i}`);
    // The 1,001st pruned: none of the others has refilled (each is owed a token), only its own new,
    // still full bucket went; it is charged all the same.
    const whileBusy = known();
    now += 60_000; // a minute later every bucket is full again
    limit.check(send(), 'newcomer');
    expect([whileBusy, known()]).toEqual([1000, 0]);
  });

  it('allows a minute of requests at once, then refuses with the time until the next one', () => {
    let now = 0;
    const limit = new CallerRateLimit({ perMinute: 60, now: () => now });
    for (let i = 0; i < 60; i += 1) expect(limit.check(send(), 'install').ok).toBe(true);
    const refused = limit.check(send(), 'install');
    expect(refused).toEqual({
      ok: false,
      caller: 'install',
      retryAfterMs: 1000,
      retryAfterS: 1,
      message: 'too many requests from install; retry in 1 s (rate_limit_per_minute)',
    });
    now += 1000;
    expect(limit.check(send(), 'install').ok).toBe(true);
    expect(limit.check(send(), 'install').ok).toBe(false);
  });

  it('a callerAgent parameter does not pick the bucket: only the caller the adapter proved does', () => {
    const limit = new CallerRateLimit({ perMinute: 2, now: () => 0 });
    expect(limit.check(send('codex'), 'install').ok).toBe(true);
    expect(limit.check(send('claude'), 'install').ok).toBe(true);
    expect(limit.check(send('codex'), 'install').ok).toBe(false);
    expect(limit.check(send(), 'agent:codex').ok).toBe(true);
  });

  it('charges every request of a batch, whatever its size (once min(requests, perMinute))', () => {
    const limit = new CallerRateLimit({ perMinute: 10, now: () => 0 });
    expect(limit.check(batchOf(8), 'install').ok).toBe(true);
    expect(limit.check(batchOf(8), 'install').ok).toBe(false);
    expect(limit.check(send(), 'install').ok).toBe(true);
    const fresh = new CallerRateLimit({ perMinute: 10, now: () => 0 });
    const refused = fresh.check(batchOf(11), 'install');
    expect(refused).toMatchObject({ ok: false, retryAfterMs: 6000 });
    expect(fresh.check(batchOf(10), 'install').ok).toBe(true); // the refused batch charged nothing
  });

  it('counts requests: each element of a batch, else one', () => {
    expect(requestCount(send())).toBe(1);
    expect(requestCount(batchOf(7))).toBe(7);
    expect(requestCount(parseBody('not json'))).toBe(1);
    expect(requestCount(parseBody('[]'))).toBe(1);
  });
});

describe('CallerTokens', () => {
  const tokens = new CallerTokens('install-secret', () => ['codex', 'claude']);
  it('knows the install token and each agent by its derived token, and nothing else', () => {
    expect(tokens.identify('Bearer install-secret')).toEqual({ kind: 'install' });
    expect(tokens.identify(`Bearer ${deriveAgentToken('install-secret', 'codex')}`)).toEqual({
      kind: 'agent',
      agent: 'codex',
    });
    expect(tokens.identify(`bearer ${deriveAgentToken('install-secret', 'claude')}`)).toMatchObject({
      agent: 'claude',
    });
    expect(tokens.identify(`Bearer ${deriveAgentToken('install-secret', 'nobody')}`)).toBeUndefined();
    expect(tokens.identify(`Bearer ${deriveAgentToken('other-install', 'codex')}`)).toBeUndefined();
    expect(tokens.identify('install-secret')).toBeUndefined();
    expect(tokens.identify(undefined)).toBeUndefined();
  });

  it('derives a different token per agent, none equal to the install token', () => {
    const derived = ['codex', 'claude'].map((a) => deriveAgentToken('install-secret', a));
    expect(new Set(derived).size).toBe(2);
    expect(derived).not.toContain('install-secret');
    expect(derived[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('names the bucket from the proven caller, else from the address', () => {
    expect(bucketOf({ kind: 'agent', agent: 'codex' }, '127.0.0.1')).toBe('agent:codex');
    expect(bucketOf({ kind: 'install' }, '127.0.0.1')).toBe('install');
    expect(bucketOf(undefined, '::1')).toBe('address:::1');
  });
});
