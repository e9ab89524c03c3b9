/**
 * Streaming over SSE, both versions: v1 §3.1.2 / §3.1.6 / §3.5.2 and the JSON-RPC binding's SSE framing,
 * v0.3 §7.2 / §7.9. The agent is the fake ACP agent (real child process) so replies arrive in chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import {
  METHODS,
  call,
  describeEvent,
  openStream,
  readUntil,
  userMessage,
  type SseEvent,
  type Version,
} from './wire.js';
import { pollUntil, waitForState } from '../helpers/wait.js';

let tb: TestBridge;
const AGENT = '/agents/fake';

beforeAll(async () => {
  tb = await startTestBridge({ agents: { fake: fakeAcpAgent() }, isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

const VERSIONS = [
  {
    version: '1.0',
    label: 'v1',
    stream: '§3.1.2 SendStreamingMessage',
    sub: '§3.1.6 SubscribeToTask',
    multi: '§3.5.2',
  },
  { version: '0.3', label: 'v0.3', stream: '§7.2 message/stream', sub: '§7.9 tasks/resubscribe', multi: '§7.9' },
] as const;

function startStream(version: Version, text: string, extra: { taskId?: string } = {}) {
  return openStream(tb, {
    version,
    method: METHODS[version].stream,
    params: { message: userMessage(version, text, extra) },
    path: AGENT,
  });
}

function subscribe(version: Version, id: string, opts: { lastEventId?: number; afterSeq?: number } = {}) {
  const params = { id, ...(opts.afterSeq !== undefined ? { metadata: { afterSeq: opts.afterSeq } } : {}) };
  return openStream(tb, {
    version,
    method: METHODS[version].subscribe,
    params,
    path: AGENT,
    ...(opts.lastEventId !== undefined ? { lastEventId: opts.lastEventId } : {}),
  });
}

/** A task that ticks until canceled, started without waiting. */
async function startTicking(version: Version): Promise<string> {
  const configuration = version === '1.0' ? { returnImmediately: true } : { blocking: false };
  const res = await call(
    tb,
    version,
    METHODS[version].send,
    { message: userMessage(version, 'stream'), configuration },
    { path: AGENT },
  );
  const id = version === '1.0' ? res.result.task.id : res.result.id;
  await waitForState(tb, id, ['working']);
  return id;
}

/** The artifact text carried by a list of events, chunks joined in order. */
function artifactText(version: Version, events: SseEvent[]): string {
  return events
    .map((e) => describeEvent(version, e))
    .filter((d) => d.kind === 'artifact')
    .map((d) => d.result.artifact.parts.map((p: { text?: string }) => p.text ?? '').join(''))
    .join('');
}

function expectContiguous(events: SseEvent[], from: number): void {
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => from + i));
}

const DIGITS_1500 = Array.from({ length: 1500 }, (_, i) => String(i % 10)).join('');

describe.each(VERSIONS)('$label streaming', ({ version, label, stream: st, sub, multi }) => {
  it(`${label} ${st}: SSE framing — text/event-stream, every event repeats the request id and carries an id: seq`, async () => {
    const s = await startStream(version, 'long 600');
    expect(s.status).toBe(200);
    expect(s.contentType).toMatch(/^text\/event-stream/);
    const events = await s.rest();
    expect(events.length).toBeGreaterThan(2);
    for (const e of events) {
      expect(e.data.jsonrpc).toBe('2.0');
      expect(e.data.id).toBe('s1');
      expect(typeof e.id).toBe('number');
    }
  });

  it(`${label} ${st}: first event is the Task`, async () => {
    const s = await startStream(version, 'long 300');
    const first = describeEvent(version, (await s.next())!);
    expect(first.kind).toBe('task');
    expect(first.result.id).toBeTruthy();
    expect(['submitted', 'working']).toContain(first.state);
    await s.rest();
  });

  it(`${label} ${st}: status and artifact updates follow in generation order, chunks appended, lastChunk at the end`, async () => {
    const s = await startStream(version, 'long 1500');
    const events = await s.rest();
    const kinds = events.map((e) => describeEvent(version, e));
    expect(kinds[0]!.kind).toBe('task');
    expect(kinds[1]).toMatchObject({ kind: 'status', state: 'working' });
    expect(kinds.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    expectContiguous(events.slice(1), events[1]!.id!);
    const artifacts = kinds.filter((k) => k.kind === 'artifact').map((k) => k.result);
    expect(artifacts.length).toBeGreaterThan(1);
    expect(artifacts[0].append).toBe(false);
    expect(artifacts.slice(1).every((a) => a.append === true)).toBe(true);
    expect(artifacts.map((a) => a.lastChunk)).toEqual([...artifacts.slice(1).map(() => false), true]);
    expect(new Set(artifacts.map((a) => a.artifact.artifactId)).size).toBe(1);
    expect(artifactText(version, events)).toBe(DIGITS_1500);
  });

  it(`${label} ${st}: the stream closes at the terminal state${version === '0.3' ? ', final:true only on the last event' : ''}`, async () => {
    const s = await startStream(version, 'echo bye');
    const events = await s.rest();
    const last = describeEvent(version, events.at(-1)!);
    expect(last).toMatchObject({ kind: 'status', state: 'completed' });
    if (version === '0.3') {
      const finals = events
        .map((e) => describeEvent(version, e))
        .filter((d) => d.kind === 'status')
        .map((d) => d.final);
      expect(finals).toEqual([...finals.slice(0, -1).map(() => false), true]);
    }
  });

  it(`${label} ${st}: the stream closes when the task is interrupted (input-required)`, async () => {
    const s = await startStream(version, 'permission');
    const events = await s.rest();
    const last = describeEvent(version, events.at(-1)!);
    expect(last).toMatchObject({ kind: 'status', state: 'input-required' });
    if (version === '0.3') expect(last.final).toBe(true);
    await call(tb, version, METHODS[version].cancel, { id: last.result.taskId });
  });

  it(`${label} ${st}: an error found before streaming is a plain JSON-RPC error, not a stream`, async () => {
    const s = await openStream(tb, {
      version,
      method: METHODS[version].stream,
      params: { message: { ...userMessage(version, 'x'), parts: [] } },
      path: AGENT,
    });
    expect(s.contentType).toMatch(/^application\/json/);
    expect(s.error?.code).toBe(-32602);
  });

  it(`${label} ${multi}: several subscribers each get every event in order; closing one affects no other`, async () => {
    const id = await startTicking(version);
    const a = await subscribe(version, id);
    const b = await subscribe(version, id);
    const snapshotA = (await a.next())!;
    const seenA = [snapshotA, ...(await readUntil(a, (e) => e.id! >= snapshotA.id! + 5))];
    a.close();
    await a.ended;
    const seenB = await readUntil(b, (e) => (e.id ?? 0) >= seenA.at(-1)!.id! + 5);
    await call(tb, version, METHODS[version].cancel, { id });
    const restB = [...seenB, ...(await b.rest())];
    expect(describeEvent(version, seenA[0]!).kind).toBe('task');
    expect(describeEvent(version, restB[0]!).kind).toBe('task');
    expect(describeEvent(version, restB.at(-1)!)).toMatchObject({ kind: 'status', state: 'canceled' });
    // After the snapshot, each stream is gap-free, and where both saw an event it is the same event.
    const liveA = seenA.slice(1);
    const liveB = restB.slice(1);
    expectContiguous(liveA, liveA[0]!.id!);
    expectContiguous(liveB, liveB[0]!.id!);
    const byIdB = new Map(liveB.map((e) => [e.id, JSON.stringify(e.data.result)]));
    for (const e of liveA) if (byIdB.has(e.id)) expect(JSON.stringify(e.data.result)).toBe(byIdB.get(e.id));
    expect(liveB.at(-1)!.id!).toBeGreaterThan(liveA.at(-1)!.id!);
  });

  it(`${label} ${sub}: a late subscriber first gets the current Task snapshot, with the artifacts so far`, async () => {
    const id = await startTicking(version);
    await waitForArtifactCount(id, 1);
    const s = await subscribe(version, id);
    const first = describeEvent(version, (await s.next())!);
    expect(first).toMatchObject({ kind: 'task', state: 'working' });
    expect(first.result.id).toBe(id);
    expect(JSON.stringify(first.result.artifacts)).toContain('tick 0');
    await call(tb, version, METHODS[version].cancel, { id });
    const rest = await s.rest();
    expect(describeEvent(version, rest.at(-1)!)).toMatchObject({ kind: 'status', state: 'canceled' });
  });

  it(`${label} ${sub}: a late subscriber to a task parked in input-required gets the snapshot first`, async () => {
    const started = await startStream(version, 'permission');
    const id = describeEvent(version, (await started.next())!).result.id as string;
    await started.rest();
    const s = await subscribe(version, id);
    const first = (await s.next())!;
    expect(describeEvent(version, first)).toMatchObject({ kind: 'task', state: 'input-required' });
    expect(first.data.result).toBeDefined();
    if (version === '0.3') {
      // v0.3: the interaction is over (the reference SDK ends a resubscribe with no running execution).
      expect(await s.rest()).toEqual([]);
    }
    await call(tb, version, METHODS[version].cancel, { id });
    if (version === '1.0') {
      const rest = await s.rest();
      expect(describeEvent(version, rest.at(-1)!)).toMatchObject({ kind: 'status', state: 'canceled' });
    }
  });

  if (version === '1.0') {
    // a2a-tck tests/compatibility/core_operations/test_task_lifecycle.py test_subscribe_terminates_at_terminal_state:
    // subscribe to an input-required task, complete it with a follow-up message from elsewhere, and the
    // stream must close with a terminal state as its last event.
    it('STREAM-SUB-002: v1 §3.1.6 SubscribeToTask stays open through input-required and ends at the terminal state', async () => {
      const started = await startStream(version, 'permission');
      const id = describeEvent(version, (await started.next())!).result.id as string;
      await started.rest();
      const s = await subscribe(version, id);
      expect(describeEvent(version, (await s.next())!)).toMatchObject({ kind: 'task', state: 'input-required' });
      const answered = await call(
        tb,
        version,
        METHODS[version].send,
        { message: userMessage(version, 'allow', { taskId: id }) },
        { path: AGENT },
      );
      expect(answered.error).toBeUndefined();
      const rest = await s.rest();
      const described = rest.map((e) => describeEvent(version, e));
      expect(described.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
      expect(described.filter((d) => d.kind === 'status' && d.state === 'completed')).toHaveLength(1);
      expect(artifactText(version, rest)).toContain('outcome=allow');
    });
  }

  it(`${label} ${sub}: subscribing to a terminal task is -32004, to an unknown task -32001`, async () => {
    const done = await startStream(version, 'echo done');
    const id = describeEvent(version, (await done.next())!).result.id as string;
    await done.rest();
    // v1: a plain JSON-RPC error before the stream; v0.3: the reference SDK's SSE `event: error`.
    const errorOf = async (s: Awaited<ReturnType<typeof subscribe>>) => {
      if (version === '1.0') {
        expect(s.contentType).toMatch(/^application\/json/);
        return s.error?.code;
      }
      expect(s.contentType).toMatch(/^text\/event-stream/);
      const events = await s.rest();
      expect(events).toHaveLength(1);
      expect(events[0]!.event).toBe('error');
      expect(events[0]!.data.id).toBe('s1');
      return events[0]!.data.error?.code;
    };
    expect(await errorOf(await subscribe(version, id))).toBe(-32004);
    expect(await errorOf(await subscribe(version, 'no-such-task'))).toBe(-32001);
    // Bad params are refused before any stream, in both versions.
    const bad = await openStream(tb, { version, method: METHODS[version].subscribe, params: {}, path: AGENT });
    expect(bad.contentType).toMatch(/^application\/json/);
    expect(bad.error?.code).toBe(-32602);
  });

  it(`${label} ${sub}: resubscribing with Last-Event-ID after a dropped connection misses nothing`, async () => {
    const s = await startStream(version, 'stream');
    const before = await readUntil(s, (e) => (e.id ?? 0) >= 4);
    const id = describeEvent(version, before[0]!).result.id as string;
    s.close();
    await s.ended;
    await waitForArtifactCount(id, 6);
    const resumed = await subscribe(version, id, { lastEventId: before.at(-1)!.id! });
    const after = await readUntil(resumed, (e) => (e.id ?? 0) >= before.at(-1)!.id! + 6);
    await call(tb, version, METHODS[version].cancel, { id });
    const all = [...after, ...(await resumed.rest())];
    expect(all[0]!.id).toBe(before.at(-1)!.id! + 1);
    expectContiguous(all, all[0]!.id!);
    expect(describeEvent(version, all.at(-1)!)).toMatchObject({ kind: 'status', state: 'canceled' });
    const text = artifactText(version, [...before, ...all]);
    expect(text).toMatch(/^tick 0 tick 1 tick 2 tick 3 tick 4 tick 5 /);
  });

  it(`${label} ${sub}: the resume cursor also works as metadata.afterSeq`, async () => {
    const id = await startTicking(version);
    await waitForArtifactCount(id, 3);
    const resumed = await subscribe(version, id, { afterSeq: 1 });
    const events = await readUntil(resumed, (e) => (e.id ?? 0) >= 4);
    await call(tb, version, METHODS[version].cancel, { id });
    await resumed.rest();
    expect(events.map((e) => e.id)).toEqual([2, 3, 4]);
  });

  it(`${label} ${sub}: a client that dropped before the task finished still gets the missed events and the end`, async () => {
    const s = await startStream(version, 'long 1500');
    const before = await readUntil(s, (e) => describeEvent(version, e).kind === 'status');
    const id = describeEvent(version, before[0]!).result.id as string;
    s.close();
    await s.ended;
    await waitForState(tb, id, ['completed']);
    const resumed = await subscribe(version, id, { lastEventId: before.at(-1)!.id! });
    expect(resumed.error).toBeUndefined();
    const after = await resumed.rest();
    expect(after[0]!.id).toBe(before.at(-1)!.id! + 1);
    expect(describeEvent(version, after.at(-1)!)).toMatchObject({ kind: 'status', state: 'completed' });
    expect(artifactText(version, [...before, ...after])).toBe(DIGITS_1500);
  });
});

/** Waits until the task's stored reply holds at least `n` ticks. */
async function waitForArtifactCount(id: string, n: number): Promise<void> {
  await pollUntil(
    () => call(tb, undefined, 'tasks/get', { id }),
    (res) => (JSON.stringify(res.result?.artifacts ?? []).match(/tick \d+/g) ?? []).length >= n,
    `task ${id} to produce ${n} ticks`,
  );
}
