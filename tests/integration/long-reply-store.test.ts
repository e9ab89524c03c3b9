/**
 * A long reply is stored once: the finished task's snapshot refers to the artifact events that hold its text
 * (docs/architecture.md#the-task-database). Through the real bridge, a real ACP agent and real HTTP: what
 * `tasks/get`, `tasks/list` and a `tasks/resubscribe` replay (Last-Event-ID) answer after a restart is the
 * task the runtime held, and the very bytes the bridge answers when the same rows hold the whole task (the
 * previous format).
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { openStream, type SseFrame } from './streaming-client.js';

const CHARS = 150_000;
/** What the fixture's `long <n>` says: the digits 0-9 over and over, in 100-character chunks. */
const LONG_REPLY = '0123456789'.repeat(CHARS / 10);
const agents = { fake: fakeAcpAgent() };

let dir: string;
let tb: TestBridge | undefined;

beforeAll(() => {
  dir = tempDir();
});
afterAll(async () => {
  await tb?.cleanup();
});

async function restart(): Promise<TestBridge> {
  await tb?.stop();
  tb = await startTestBridge({ dir, agents });
  return tb;
}

/** One JSON-RPC call's raw response body: the bytes a client gets. */
async function rawCall(method: string, params: unknown): Promise<string> {
  const res = await fetch(tb!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tb!.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.text();
}

async function replay(taskId: string, lastEventId: number): Promise<SseFrame[]> {
  const stream = await openStream(
    tb!.url,
    tb!.token,
    { method: 'tasks/resubscribe', params: { id: taskId } },
    { 'last-event-id': String(lastEventId) },
  );
  const { frames, ended } = await stream.read();
  expect(ended).toBe(true);
  return frames;
}

/** What readers answer about the two tasks, as raw bodies and replayed frames. */
async function readers(sentId: string, streamedId: string, midId: number): Promise<Record<string, unknown>> {
  return {
    getSent: await rawCall('tasks/get', { id: sentId }),
    getStreamed: await rawCall('tasks/get', { id: streamedId }),
    list: await rawCall('tasks/list', { includeArtifacts: true, pageSize: 10 }),
    listWithoutArtifacts: await rawCall('tasks/list', { pageSize: 10 }),
    replayFrom0: await replay(streamedId, 0),
    replayFromMid: await replay(streamedId, midId),
  };
}

describe('a long reply stored once', () => {
  it('reads back after a restart as the runtime held it, byte for byte as the previous format', async () => {
    await restart();
    const sent = JSON.parse(await rawCall('message/send', { agent: 'fake', text: `long ${CHARS}` })) as {
      result: { id: string; artifacts: { parts: { text: string }[] }[] };
    };
    // A blocking send answers with the task the runtime holds in memory, not a read of the store.
    const heldJson = JSON.stringify(sent.result);
    expect(sent.result.artifacts[0]!.parts).toEqual([{ kind: 'text', text: LONG_REPLY }]);

    const stream = await openStream(tb!.url, tb!.token, {
      method: 'message/stream',
      params: { agent: 'fake', text: `long ${CHARS}` },
    });
    const { frames } = await stream.read();
    const streamedId = frames[0]!.data.result.id as string;
    const streamedText = frames
      .filter((f) => f.data.result.kind === 'artifact-update')
      .flatMap((f) => f.data.result.artifact.parts.map((p: { text: string }) => p.text))
      .join('');
    expect(streamedText).toBe(LONG_REPLY);
    expect(frames.length).toBeGreaterThan(5);
    const midId = frames[Math.floor(frames.length / 2)]!.id!;

    // The snapshots refer to the events: the reply is not in the rows.
    await tb!.stop();
    const file = path.join(tb!.dataDir, 'contactor.db');
    const rows = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db
          .prepare('SELECT id, length(task_json) AS chars, artifact_refs IS NOT NULL AS refers FROM tasks ORDER BY id')
          .all() as { id: string; chars: number; refers: number }[];
      } finally {
        db.close();
      }
    };
    for (const row of rows()) {
      expect(row.refers, row.id).toBe(1);
      expect(row.chars, row.id).toBeLessThan(5_000);
    }

    await restart();
    const withRefs = await readers(sent.result.id, streamedId, midId);
    expect(JSON.stringify(JSON.parse(withRefs.getSent as string).result)).toBe(heldJson);
    const streamedTask = JSON.parse(withRefs.getStreamed as string).result;
    expect(streamedTask.artifacts[0].parts).toEqual([{ kind: 'text', text: LONG_REPLY }]);
    const listed = JSON.parse(withRefs.list as string).result.tasks as { id: string }[];
    expect(listed.map((t) => JSON.stringify(t))).toEqual([JSON.stringify(streamedTask), heldJson]);
    // The replay is the stream's own events, as they were sent.
    const original = frames.filter((f) => f.id! > 0).map((f) => [f.id, f.data.result]);
    expect((withRefs.replayFrom0 as SseFrame[]).map((f) => [f.id, f.data.result])).toEqual(original);
    expect((withRefs.replayFromMid as SseFrame[]).map((f) => [f.id, f.data.result])).toEqual(
      original.filter(([id]) => (id as number) > midId),
    );

    // The same rows in the previous format: the whole task in task_json, nothing referred to.
    await tb!.stop();
    const db = new Database(file);
    const whole = db.prepare('UPDATE tasks SET task_json = ?, artifact_refs = NULL, task_bytes = NULL WHERE id = ?');
    whole.run(heldJson, sent.result.id);
    whole.run(JSON.stringify(streamedTask), streamedId);
    db.close();
    expect(rows().map((r) => r.refers)).toEqual([0, 0]);

    await restart();
    expect(await readers(sent.result.id, streamedId, midId)).toEqual(withRefs);
  });
});
