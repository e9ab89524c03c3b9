import type { RpcResponse, TestBridge } from '../helpers/bridge.js';

/** Polls tasks/get until the task reaches one of `states` (generous deadline; never a timing assertion). */
export async function waitForState(
  tb: Pick<TestBridge, 'rpc'>,
  id: string,
  states: string[],
  ms = 20_000,
): Promise<RpcResponse['result']> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await tb.rpc('tasks/get', { id });
    if (res.result && states.includes(res.result.status.state)) return res.result;
    if (Date.now() > deadline)
      throw new Error(`task ${id} did not reach ${states.join('|')} within ${ms} ms: ${JSON.stringify(res)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
