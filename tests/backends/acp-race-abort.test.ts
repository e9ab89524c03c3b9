/**
 * raceAbort (main/backends/acp/race-abort.ts): a request the turn stopped waiting for may still fail later
 * (its connection closing rejects it with "ACP connection closed"); that must never be an unhandled
 * rejection. The bridge logs those as internal errors; vitest fails the run on one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ABORTED, raceAbort } from '../../main/backends/acp/race-abort.js';

/**
 * A promise the test rejects when it likes. It stands in for a pending SDK request: @agentclientprotocol/sdk
 * 2.4.0 dist/core/jsonrpc.js `Connection.close` (called from `receive` when the agent's stdout ends) rejects
 * every pending response with `new Error("ACP connection closed")`.
 */
function pendingRequest(): { promise: Promise<string>; fail: () => void } {
  let fail!: () => void;
  const promise = new Promise<string>((_, reject) => {
    fail = () => reject(new Error('ACP connection closed'));
  });
  return { promise, fail };
}

/** Node reports an unhandled rejection after the microtask queue drains; two macrotask turns are ample. */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

const seen: unknown[] = [];
const listener = (_reason: unknown, promise: Promise<unknown>) => seen.push(promise);
beforeAll(() => process.on('unhandledRejection', listener));
afterAll(() => process.off('unhandledRejection', listener));
afterEach(() => {
  seen.length = 0;
});

describe('raceAbort', () => {
  it('a signal aborted before the race: ABORTED, and the dropped request failing later is handled', async () => {
    const request = pendingRequest();
    const controller = new AbortController();
    controller.abort();
    await expect(raceAbort(request.promise, controller.signal)).rejects.toBe(ABORTED);
    request.fail();
    await settle();
    expect(seen).not.toContain(request.promise);
  });

  it('a signal aborting during the race: ABORTED, and the request failing later is handled', async () => {
    const request = pendingRequest();
    const controller = new AbortController();
    const raced = raceAbort(request.promise, controller.signal);
    controller.abort();
    await expect(raced).rejects.toBe(ABORTED);
    request.fail();
    await settle();
    expect(seen).toEqual([]);
  });

  it('no abort: the request settles the race, value or error', async () => {
    const signal = new AbortController().signal;
    await expect(raceAbort(Promise.resolve('session-1'), signal)).resolves.toBe('session-1');
    const request = pendingRequest();
    const raced = raceAbort(request.promise, signal);
    request.fail();
    await expect(raced).rejects.toThrow('ACP connection closed');
  });
});
