/**
 * The one way a test waits for something nothing tells it about: look again until it holds.
 *
 * No deadline of its own: inside a test, the test's timeout (tests/helpers/timeouts.ts) bounds the wait, so a loaded
 * machine makes a test slower, never red. A test that times out while waiting reports what it waited for and
 * the last thing it saw, and the loop stops with the test. Outside a test (a beforeAll) the hook's own timeout
 * bounds the wait; ABANDONED_AFTER_MS only ends a loop that a timed-out hook left behind. The timer is the real one, taken when this module loads: a test that fakes timers for the code
 * under test still waits for real processes.
 */
import { onTestFailed, onTestFinished } from 'vitest';
import type { RpcResponse, TestBridge } from './bridge.js';

const realSetTimeout = globalThis.setTimeout;
const POLL_MS = 25;
const ABANDONED_AFTER_MS = 10 * 60_000;

const pause = (): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, POLL_MS));

/** Resolves with `probe()`'s value once `ok` accepts it; `what` names the wait in a failure. */
export async function pollUntil<T>(
  probe: () => T | Promise<T>,
  ok: (value: Awaited<T>) => boolean,
  what: string,
): Promise<Awaited<T>> {
  let ended = false;
  let satisfied = false;
  let last: unknown = 'nothing yet';
  let deadline = Infinity;
  try {
    onTestFinished(() => {
      ended = true;
    });
    onTestFailed(() => {
      if (!satisfied) console.error(`the test failed while waiting for ${what}; last saw ${describe(last)}`);
    });
  } catch {
    deadline = Date.now() + ABANDONED_AFTER_MS; // not inside a test
  }
  for (;;) {
    const value = await probe();
    if (ok(value)) {
      satisfied = true;
      return value;
    }
    last = value;
    if (ended) throw new Error(`the test ended while waiting for ${what}; last saw ${describe(last)}`);
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: last saw ${describe(last)}`);
    await pause();
  }
}

/** Resolves once `check()` is true. */
export async function eventually(check: () => boolean | Promise<boolean>, what = 'a condition'): Promise<void> {
  await pollUntil(check, (holds) => holds, what);
}

/** Polls tasks/get (JSON-RPC on `/`) until the task is in one of `states`; returns the task. */
export function waitForState(
  tb: Pick<TestBridge, 'rpc'>,
  id: string,
  states: string | readonly string[],
): Promise<RpcResponse['result']> {
  const wanted = typeof states === 'string' ? [states] : states;
  return pollUntil(
    () => tb.rpc('tasks/get', { id }),
    (res) => res.result !== undefined && wanted.includes(res.result.status.state),
    `task ${id} to reach ${wanted.join('|')}`,
  ).then((res) => res.result);
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.slice(0, 500);
  } catch {
    return String(value);
  }
}
