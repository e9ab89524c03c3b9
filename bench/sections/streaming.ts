/**
 * Streaming through the bridge. Chunk latency: the agent stamps each chunk with its emit time and the
 * SSE subscriber subtracts it on arrival; the baseline is the same agent read directly by the SDK
 * client. Throughput: a 10 MB reply streamed end to end, bridge vs direct.
 */
import { randomUUID } from 'node:crypto';
import type { DirectAgent } from '../lib/acp-direct.js';
import { streamCall } from '../lib/sse-client.js';
import { cpuMs } from '../lib/children.js';
import { median, percentile } from '../lib/stats.js';

export interface ChunkLatency {
  chunks: number;
  chunkChars: number;
  intervalMs: number;
  directP50Ms: number;
  directP99Ms: number;
  bridgeP50Ms: number;
  bridgeP99Ms: number;
}

export interface BulkThroughput {
  megabytes: number;
  chunkChars: number;
  directMBps: number;
  bridgeMBps: number;
  /** Transfers each way (the rates are their medians). */
  pairs: number;
  /** Median SSE events per bridge transfer. */
  bridgeEvents: number;
  /**
   * CPU per MB of each process, medians of the transfers: what the work costs apart from how the cores
   * were shared. The agent's is read on the direct transfers (it does the same through the bridge);
   * `directClient` is the SDK client alone (this process), `sseClient` this process reading the SSE.
   */
  cpuMsPerMB: { agent: number | undefined; directClient: number; sseClient: number };
}

const STAMP = /S(\d+\.\d+)\|/g;
/** Wall-clock ms with sub-ms precision, comparable with the stamp agent's (bench/fixtures/stamp-agent.mjs). */
export const now = (): number => performance.timeOrigin + performance.now();

/** Adds to `into` the delay of each stamped chunk in `text`, received at `receivedAt`. */
export function stampsIn(text: string, receivedAt: number, into: number[]): void {
  for (const m of text.matchAll(STAMP)) into.push(receivedAt - Number(m[1]));
}

interface Bridge {
  port: number;
  token: string;
  agent: string;
}

/** Streams one prompt through the bridge; calls `onText` for each artifact chunk with its arrival time. */
export async function streamThroughBridge(
  bridge: Bridge,
  text: string,
  onText: (text: string, at: number) => void,
): Promise<number> {
  let events = 0;
  let final = false;
  await streamCall({
    port: bridge.port,
    path: `/agents/${bridge.agent}`,
    headers: { authorization: `Bearer ${bridge.token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/stream',
      params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
    }),
    onEvent: (data, at) => {
      events += 1;
      const result = (
        data as {
          result?: {
            kind?: string;
            artifact?: { parts: { text?: string }[] };
            final?: boolean;
            status?: { state: string };
          };
        }
      ).result;
      if (result?.kind === 'artifact-update')
        for (const p of result.artifact?.parts ?? []) if (p.text) onText(p.text, at);
      if (result?.kind === 'status-update' && result.final) {
        final = true;
        if (result.status?.state !== 'completed') throw new Error(`streamed task ended ${result.status?.state}`);
      }
    },
  });
  if (!final) throw new Error('the bridge stream ended without a final status');
  return events;
}

export async function measureChunkLatency(opts: {
  direct: DirectAgent;
  bridge: Bridge;
  chunks: number;
  intervalMs: number;
  chunkChars: number;
}): Promise<ChunkLatency> {
  const prompt = `stamp ${opts.chunks} ${opts.intervalMs} ${opts.chunkChars}`;
  const direct: number[] = [];
  await opts.direct.prompt(prompt, (text) => stampsIn(text, now(), direct));
  const bridge: number[] = [];
  await streamThroughBridge(opts.bridge, prompt, (text, at) => stampsIn(text, at, bridge));
  if (bridge.length !== opts.chunks || direct.length !== opts.chunks) {
    throw new Error(
      `expected ${opts.chunks} stamps, got ${direct.length} direct and ${bridge.length} through the bridge`,
    );
  }
  return {
    chunks: opts.chunks,
    chunkChars: opts.chunkChars,
    intervalMs: opts.intervalMs,
    directP50Ms: percentile(direct, 50),
    directP99Ms: percentile(direct, 99),
    bridgeP50Ms: percentile(bridge, 50),
    bridgeP99Ms: percentile(bridge, 99),
  };
}

/**
 * `pairs` 10 MB replies each way, direct and through the bridge alternately (the order flips each pair),
 * so both see the same moments of a shared machine; each rate is the median of its transfers. One pair
 * swung from 19% to 100% of direct between runs on a busy machine.
 */
export async function measureBulk(opts: {
  direct: DirectAgent;
  bridge: Bridge;
  bytes: number;
  chunkChars: number;
  pairs: number;
}): Promise<BulkThroughput> {
  const prompt = `bulk ${opts.bytes} ${opts.chunkChars}`;
  const mb = opts.bytes / 1e6;
  const direct: number[] = [];
  const bridge: number[] = [];
  const events: number[] = [];
  const cpu = { agent: [] as number[], directClient: [] as number[], sseClient: [] as number[] };
  const ownCpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const viaDirect = async (): Promise<void> => {
    const agentBefore = opts.direct.pid === undefined ? undefined : cpuMs(opts.direct.pid);
    const ownBefore = ownCpuMs();
    const t0 = performance.now();
    const reply = await opts.direct.prompt(prompt);
    direct.push(mb / ((performance.now() - t0) / 1000));
    cpu.directClient.push((ownCpuMs() - ownBefore) / mb);
    const agentAfter = opts.direct.pid === undefined ? undefined : cpuMs(opts.direct.pid);
    if (agentBefore !== undefined && agentAfter !== undefined) cpu.agent.push((agentAfter - agentBefore) / mb);
    if (reply.length !== opts.bytes)
      throw new Error(`direct bulk reply had ${reply.length} characters, not ${opts.bytes}`);
  };
  const viaBridge = async (): Promise<void> => {
    let received = 0;
    const ownBefore = ownCpuMs();
    const t0 = performance.now();
    events.push(await streamThroughBridge(opts.bridge, prompt, (text) => (received += text.length)));
    bridge.push(mb / ((performance.now() - t0) / 1000));
    cpu.sseClient.push((ownCpuMs() - ownBefore) / mb);
    if (received !== opts.bytes)
      throw new Error(`bridge bulk stream carried ${received} characters, not ${opts.bytes}`);
  };
  for (let i = 0; i < opts.pairs; i++) {
    for (const step of i % 2 === 0 ? [viaDirect, viaBridge] : [viaBridge, viaDirect]) await step();
  }
  return {
    megabytes: mb,
    chunkChars: opts.chunkChars,
    pairs: opts.pairs,
    directMBps: median(direct),
    bridgeMBps: median(bridge),
    bridgeEvents: median(events),
    cpuMsPerMB: {
      agent: cpu.agent.length ? median(cpu.agent) : undefined,
      directClient: median(cpu.directClient),
      sseClient: median(cpu.sseClient),
    },
  };
}
