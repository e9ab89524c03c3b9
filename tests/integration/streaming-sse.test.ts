/**
 * SSE over real HTTP (docs/contract.md#streaming; A2A v0.3 §7.2, §7.9): the Task first, then status and
 * artifact events whose `id:` is the task's event sequence, the stream closing after the final event,
 * and `tasks/resubscribe` resuming after Last-Event-ID without losing an event.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fixtureAgent, integrationAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { eventually, waitForState } from '../helpers/wait.js';
import { openStream, type SseFrame } from './streaming-client.js';

let tb: TestBridge;
let scratch: string;
let gates = 0;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'contactor-sse-'));
  tb = await startTestBridge({ agents: { echo: echoAgent() } });
});
afterAll(async () => {
  await tb.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** A bridge-less way to add a gated agent per test would need a restart; one agent per gate file instead. */
async function gatedBridge(): Promise<{ tb: TestBridge; release(): void }> {
  gates += 1;
  const gate = path.join(scratch, `gate-${gates}`);
  const own = await startTestBridge({
    agents: { gated: integrationAgent('gate.mjs', [gate]) },
  });
  return { tb: own, release: () => writeFileSync(gate, '') };
}

const seqs = (frames: SseFrame[]) => frames.map((f) => f.id);

function expectIncreasing(ids: (number | undefined)[]): void {
  for (const id of ids) expect(Number.isInteger(id)).toBe(true);
  for (let i = 1; i < ids.length; i += 1) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
}

describe('message/stream', () => {
  it('sends the Task first, then status and artifact events with increasing ids, then closes', async () => {
    const stream = await openStream(tb.url, tb.token, {
      method: 'message/stream',
      params: { agent: 'echo', text: 'stream me' },
    });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const { frames, ended } = await stream.read();
    expect(ended).toBe(true);
    for (const f of frames) expect(f.data).toMatchObject({ jsonrpc: '2.0', id: 'stream-1' });
    const results = frames.map((f) => f.data.result);
    expect(results[0]).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expectIncreasing(seqs(frames));
    const artifact = results.find((r) => r.kind === 'artifact-update');
    expect(artifact.artifact.parts[0].text).toContain('echo: stream me');
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(results.slice(0, -1).some((r) => r.final === true)).toBe(false);
    expect(results.filter((r) => r.kind === 'status-update').map((r) => r.status.state)).toEqual([
      'working',
      'completed',
    ]);
  });

  it('ends the stream when the task parks on a question (input-required)', async () => {
    const stream = await openStream(tb.url, tb.token, {
      method: 'message/stream',
      params: { agent: 'echo', text: 'decide: A|B' },
    });
    const { frames, ended } = await stream.read();
    expect(ended).toBe(true);
    expect(frames.at(-1)!.data.result).toMatchObject({ kind: 'status-update', status: { state: 'input-required' } });
  });

  it('refuses a stream inside a batch', async () => {
    const res = await fetch(tb.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { agent: 'echo', text: 'x' } }]),
    });
    const [reply] = (await res.json()) as { error: { code: number } }[];
    expect(reply!.error.code).toBe(-32600);
  });
});

describe('tasks/resubscribe', () => {
  it('resumes after Last-Event-ID with every event the client missed, once each', async () => {
    const { tb: own, release } = await gatedBridge();
    try {
      const first = await openStream(own.url, own.token, {
        method: 'message/stream',
        params: { agent: 'gated', text: 'wait' },
      });
      const seen = await first.read(
        (f) => f.data.result?.kind === 'status-update' && f.data.result.status.state === 'working',
      );
      first.close();
      const taskId = seen.frames[0]!.data.result.id as string;
      const lastId = seen.frames.at(-1)!.id!;

      // Live resume: subscribed while the task still runs, then it finishes.
      const resumed = await openStream(
        own.url,
        own.token,
        { method: 'tasks/resubscribe', params: { id: taskId } },
        { 'last-event-id': String(lastId) },
      );
      release();
      const rest = await resumed.read();
      expect(rest.ended).toBe(true);
      expect(rest.frames.every((f) => f.id! > lastId)).toBe(true);
      expect(rest.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });

      // Replay from the store after completion: the same events, so nothing was lost or doubled.
      const replay = await openStream(
        own.url,
        own.token,
        { method: 'tasks/resubscribe', params: { id: taskId } },
        { 'last-event-id': '0' },
      );
      const all = await replay.read();
      expect(all.ended).toBe(true);
      const joined = [...seen.frames.filter((f) => f.id! > 0), ...rest.frames];
      expect(seqs(joined)).toEqual(seqs(all.frames));
      expect(joined.map((f) => f.data.result)).toEqual(all.frames.map((f) => f.data.result));
      expectIncreasing(seqs(all.frames));
    } finally {
      release();
      await own.cleanup();
    }
  });

  it('replays what happened while the client was away (metadata.afterSeq works as well)', async () => {
    const { tb: own, release } = await gatedBridge();
    try {
      const first = await openStream(own.url, own.token, {
        method: 'message/stream',
        params: { agent: 'gated', text: 'wait' },
      });
      const seen = await first.read((f) => f.data.result?.status?.state === 'working');
      first.close();
      const taskId = seen.frames[0]!.data.result.id as string;
      release();
      await waitForState(own, taskId, ['completed']);

      const resumed = await openStream(own.url, own.token, {
        method: 'tasks/resubscribe',
        params: { id: taskId, metadata: { afterSeq: seen.frames.at(-1)!.id } },
      });
      const rest = await resumed.read();
      expect(rest.ended).toBe(true);
      const kinds = rest.frames.map((f) => f.data.result.kind);
      expect(kinds).toContain('artifact-update');
      expect(rest.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
      expect(rest.frames[0]!.id).toBe(seen.frames.at(-1)!.id! + 1);
    } finally {
      release();
      await own.cleanup();
    }
  });

  it('refuses a fresh subscription to a finished task (-32004), but a resume cursor gets the end', async () => {
    const { result } = await tb.rpc('message/send', { agent: 'echo', text: 'already done' });
    // v0.3 answers its resubscribe errors on the stream (the reference SDK's `event: error`).
    const fresh = await (
      await openStream(tb.url, tb.token, { method: 'tasks/resubscribe', params: { id: result.id } })
    ).read();
    expect(fresh.frames).toEqual([
      {
        id: undefined,
        event: 'error',
        data: expect.objectContaining({ id: 'stream-1', error: expect.objectContaining({ code: -32004 }) }),
      },
    ]);
    const behind = await openStream(
      tb.url,
      tb.token,
      { method: 'tasks/resubscribe', params: { id: result.id } },
      { 'last-event-id': '1' },
    );
    const missed = await behind.read();
    expect(missed.ended).toBe(true);
    expect(missed.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
    // A cursor already at (or past) the end must close at once, not hang waiting for events.
    const current = await openStream(
      tb.url,
      tb.token,
      { method: 'tasks/resubscribe', params: { id: result.id } },
      { 'last-event-id': '999' },
    );
    const nothing = await current.read();
    expect(nothing.ended).toBe(true);
    expect(nothing.frames.every((f) => f.data.result.status?.state === 'completed')).toBe(true);
  });

  it('answers an unknown task with -32001 as an SSE error event, as v0.3 clients of the reference SDK expect', async () => {
    const stream = await openStream(tb.url, tb.token, { method: 'tasks/resubscribe', params: { id: 'nope' } });
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const { frames, ended } = await stream.read();
    expect(ended).toBe(true);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.event).toBe('error');
    expect(frames[0]!.data.error.code).toBe(-32001);
  });
});

describe('shutdown with a stream open', () => {
  it('stops promptly with a subscriber attached and a task running; the stream ends', async () => {
    const { tb: own, release } = await gatedBridge();
    try {
      const stream = await openStream(own.url, own.token, {
        method: 'message/stream',
        params: { agent: 'gated', text: 'wait' },
      });
      await stream.read((f) => f.data.result?.status?.state === 'working');
      const pending = stream.read().catch(() => ({ frames: [], ended: true }));
      await own.bridge.stop();
      expect((await pending).ended).toBe(true);
    } finally {
      release();
      await own.cleanup();
    }
  });
});

/**
 * A task stream whose client goes away must unsubscribe at once. Node emits a request's 'close' as soon
 * as its body has been read, not when the client disconnects, so a stream that waited on that would keep
 * its listener on the task until the task next changed — for a task parked on a long question, days.
 */
describe('a subscriber that disconnects', () => {
  let own: TestBridge | undefined;
  afterEach(async () => {
    await own?.cleanup();
    own = undefined;
  });

  /** How many listeners the live task has (the dispatcher keeps one of its own). */
  function listenersOf(b: TestBridge, taskId: string): number {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const live = (b.bridge.server.dispatcher as any).live.get(taskId);
    return live ? (live.listeners as Set<unknown>).size : -1;
  }

  it('is unsubscribed from its task while the task runs on', async () => {
    own = await startTestBridge({ agents: { sleepy: fixtureAgent('sleeper.mjs') } });
    const bridge = own;
    const sent = await bridge.rpc(
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'zz' }],
        },
        configuration: { blocking: false },
      },
      { path: '/agents/sleepy' },
    );
    const taskId = sent.result.id as string;
    const before = listenersOf(bridge, taskId);
    expect(before).toBeGreaterThan(0);

    const client = new AbortController();
    const res = await fetch(`${bridge.url}/agents/sleepy`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }),
      signal: client.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('data:')) seen += new TextDecoder().decode((await reader.read()).value);
    expect(listenersOf(bridge, taskId)).toBe(before + 1);

    client.abort();
    await eventually(() => listenersOf(bridge, taskId) === before, 'the listener to go');
    expect(bridge.bridge.server.dispatcher.get(taskId).status.state).toBe('working');
  });
});
