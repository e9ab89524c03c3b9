/**
 * The bridge's added latency on a real path: the same small prompt to a long-lived ACP echo agent,
 * directly with the SDK client vs through the bridge (blocking `message/send`, one context, so one
 * ACP session is reused as a multi-turn caller would). The two paths alternate call by call.
 */
import { randomUUID } from 'node:crypto';
import type { DirectAgent } from '../lib/acp-direct.js';
import { KeepAliveClient } from '../lib/http-client.js';
import { percentile } from '../lib/stats.js';

export interface AcpOverhead {
  calls: number;
  directP50Ms: number;
  directP99Ms: number;
  bridgeP50Ms: number;
  bridgeP99Ms: number;
  addedP50Ms: number;
  addedP99Ms: number;
}

const PROMPT = 'echo hello from the benchmark';

export async function measureAcpOverhead(opts: {
  direct: DirectAgent;
  bridge: { port: number; token: string; agent: string };
  calls: number;
  warmup: number;
}): Promise<AcpOverhead> {
  const client = new KeepAliveClient(
    { port: opts.bridge.port, headers: { authorization: `Bearer ${opts.bridge.token}` } },
    1,
  );
  const contextId = randomUUID();
  const viaBridge = async (): Promise<number> => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          contextId,
          parts: [{ kind: 'text', text: PROMPT }],
        },
      },
    });
    const t0 = performance.now();
    const reply = await client.post(`/agents/${opts.bridge.agent}`, body);
    const ms = performance.now() - t0;
    if (!reply.body.includes('"state":"completed"') || !reply.body.includes('echo: hello')) {
      throw new Error(`bridge ACP call did not complete: ${reply.body.slice(0, 300)}`);
    }
    return ms;
  };
  const direct = async (): Promise<number> => {
    const t0 = performance.now();
    const reply = await opts.direct.prompt(PROMPT);
    const ms = performance.now() - t0;
    if (!reply.startsWith('echo: hello')) throw new Error(`direct ACP call replied ${JSON.stringify(reply)}`);
    return ms;
  };
  for (let i = 0; i < opts.warmup; i++) {
    await direct();
    await viaBridge();
  }
  const d: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < opts.calls; i++) {
    d.push(await direct());
    b.push(await viaBridge());
  }
  client.close();
  const directP50Ms = percentile(d, 50);
  const directP99Ms = percentile(d, 99);
  const bridgeP50Ms = percentile(b, 50);
  const bridgeP99Ms = percentile(b, 99);
  return {
    calls: opts.calls,
    directP50Ms,
    directP99Ms,
    bridgeP50Ms,
    bridgeP99Ms,
    addedP50Ms: bridgeP50Ms - directP50Ms,
    addedP99Ms: bridgeP99Ms - directP99Ms,
  };
}
