import { describe, expect, it } from 'vitest';
import { CallerRateLimit, callerOf } from '../../main/transport/rate-limit.js';
import { parseBody } from '../../main/transport/rpc-types.js';

const isAgent = (name: string) => name === 'codex' || name === 'claude';
const request = (callerAgent?: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { agent: 'echo', text: 'x', ...(callerAgent ? { callerAgent } : {}) },
});
/** The body as the adapter hands it over: parsed once (see rpc-post.ts). */
const send = (callerAgent?: string) => parseBody(JSON.stringify(request(callerAgent)));

describe('CallerRateLimit', () => {
  it('allows a minute of requests at once, then refuses with the time until the next one', () => {
    let now = 0;
    const limit = new CallerRateLimit({ perMinute: 60, isAgent, now: () => now });
    for (let i = 0; i < 60; i += 1) expect(limit.check(send(), '127.0.0.1').ok).toBe(true);
    const refused = limit.check(send(), '127.0.0.1');
    expect(refused).toEqual({ ok: false, caller: 'address:127.0.0.1', retryAfterMs: 1000 });
    now += 1000;
    expect(limit.check(send(), '127.0.0.1').ok).toBe(true);
    expect(limit.check(send(), '127.0.0.1').ok).toBe(false);
  });

  it('counts each known agent apart from the address, and ignores invented caller names', () => {
    const limit = new CallerRateLimit({ perMinute: 2, isAgent, now: () => 0 });
    expect(limit.check(send('codex'), '127.0.0.1')).toEqual({ ok: true, caller: 'agent:codex' });
    expect(limit.check(send('codex'), '127.0.0.1').ok).toBe(true);
    expect(limit.check(send('codex'), '127.0.0.1').ok).toBe(false);
    expect(limit.check(send('claude'), '127.0.0.1').ok).toBe(true);
    expect(limit.check(send('made-up-1'), '127.0.0.1')).toEqual({ ok: true, caller: 'address:127.0.0.1' });
    expect(limit.check(send('made-up-2'), '127.0.0.1').ok).toBe(true);
    expect(limit.check(send('made-up-3'), '127.0.0.1').ok).toBe(false);
  });

  it('counts every request of a batch', () => {
    const limit = new CallerRateLimit({ perMinute: 10, isAgent, now: () => 0 });
    const batch = parseBody(JSON.stringify(Array.from({ length: 8 }, () => request())));
    expect(limit.check(batch, '::1').ok).toBe(true);
    expect(limit.check(batch, '::1').ok).toBe(false);
    expect(limit.check(send(), '::1').ok).toBe(true);
  });
});

describe('callerOf', () => {
  it('finds callerAgent in the shorthand, the A2A metadata and the message metadata', () => {
    expect(callerOf(send('codex'), isAgent)).toEqual({ agent: 'codex', requests: 1 });
    const standard = (where: 'metadata' | 'message') =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params:
          where === 'metadata'
            ? { metadata: { callerAgent: 'claude' }, message: {} }
            : { message: { metadata: { callerAgent: 'claude' } } },
      });
    expect(callerOf(parseBody(standard('metadata')), isAgent).agent).toBe('claude');
    expect(callerOf(parseBody(standard('message')), isAgent).agent).toBe('claude');
    expect(callerOf(parseBody('not json'), isAgent)).toEqual({ requests: 1 });
    expect(callerOf(parseBody('[]'), isAgent)).toEqual({ requests: 1 });
    expect(callerOf(parseBody('{"params":{"callerAgent":42}}'), isAgent)).toEqual({ requests: 1 });
  });
});
