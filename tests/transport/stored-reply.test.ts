/**
 * A v0.3 blocking send answers with the store's own JSON text of the finished task (LiveTask.storedJson),
 * not a second serialization of it: the reply must be byte for byte what serializing the task gives, and
 * the text must be dropped by any change the store has not written yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PERSON_BY_TOKEN } from '../../main/domain/authority.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { LiveTask } from '../../main/runtime/live-task.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { JsonRpcEndpoint } from '../../main/transport/jsonrpc.js';
import type { RpcCall } from '../../main/transport/rpc-types.js';
import { FakeBackend } from '../fixtures/fake-backends.js';
import { agentSettings } from '../runtime/core.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function sqliteStore(): SqliteTaskStore {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-stored-reply-'));
  const store = new SqliteTaskStore({ file: join(dir, 'tasks.db') });
  cleanups.push(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** An agent whose reply carries text, a data part and a receipt: a task with every part of its shape. */
const talker = (): FakeBackend =>
  new FakeBackend(async (_turn, report) => {
    report.text('the answer is "42" — ünïcödé\n');
    report.content({ kind: 'data', data: { answer: 42, nested: { list: [1, 'two', null] } } });
    report.receipt({ pid: 4242 });
    return { kind: 'completed', exitCode: 0 };
  });

function endpointOn(store: SqliteTaskStore): { endpoint: JsonRpcEndpoint; dispatcher: Dispatcher } {
  const registry = new AgentRegistry();
  registry.add('talker', talker(), agentSettings({ appendDecisionContract: false }));
  const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
  cleanups.push(() => dispatcher.shutdown());
  const ctx = { dispatcher, cards: { agentCard: () => ({}), listAgents: () => [] } };
  return { endpoint: new JsonRpcEndpoint(ctx, { error: () => undefined }), dispatcher };
}

const call: RpcCall = { version: '0.3', agentFromPath: 'talker', identity: PERSON_BY_TOKEN };

function sendRequest(id: string | number, configuration?: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'message/send',
    params: {
      message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      ...(configuration ? { configuration } : {}),
    },
  };
}

/** Every JSON.stringify call whose value is (or wraps) a whole task: what "built once" forbids in the reply. */
function taskSerializations(spy: { mock: { calls: unknown[][] } }): number {
  const isTask = (v: unknown): boolean =>
    typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'task';
  return spy.mock.calls.filter(([v]) => isTask(v) || isTask((v as { result?: unknown } | null)?.result)).length;
}

describe('a v0.3 blocking send answers with the stored snapshot text', () => {
  it('is byte-identical to serializing the finished task, and serializes no task beyond the store', async () => {
    const store = sqliteStore();
    const { endpoint, dispatcher } = endpointOn(store);
    for (const id of ['a-"quoted"-id', 7, null]) {
      const spy = vi.spyOn(JSON, 'stringify');
      const outcome = await endpoint.handle({ json: true, value: sendRequest(id as string) }, call);
      const stringified = taskSerializations(spy);
      spy.mockRestore();
      if (outcome.kind !== 'json' || outcome.text === undefined) throw new Error('no JSON reply');
      const taskId = (JSON.parse(outcome.text) as { result: { id: string } }).result.id;
      const task = dispatcher.get(taskId);
      expect(task.status.state).toBe('completed');
      // The old path: the whole envelope serialized from the task.
      expect(outcome.text).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
      // The task's snapshots go to the store (created, working, completed); the reply adds none.
      expect(stringified).toBe(3);
    }
  });

  it('falls back to serializing when the reply is not the stored task (historyLength)', async () => {
    const store = sqliteStore();
    const { endpoint, dispatcher } = endpointOn(store);
    const outcome = await endpoint.handle({ json: true, value: sendRequest(1, { historyLength: 0 }) }, call);
    if (outcome.kind !== 'json' || outcome.text === undefined) throw new Error('no JSON reply');
    const reply = JSON.parse(outcome.text) as { result: { id: string; history: unknown[] } };
    expect(reply.result.history).toEqual([]);
    const task = dispatcher.get(reply.result.id);
    expect(outcome.text).toBe(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ...task, history: [] } }));
  });
});

describe('LiveTask.storedJson', () => {
  it('is the text the store keeps, only while the task is finished, durable and unchanged since', () => {
    const store = sqliteStore();
    const now = new Date().toISOString();
    const task = {
      kind: 'task' as const,
      id: crypto.randomUUID(),
      contextId: crypto.randomUUID(),
      status: { state: 'submitted' as const, timestamp: now },
      history: [],
      artifacts: [],
      metadata: {
        agent: 'talker',
        createdAt: now,
        requiresReview: true as const,
        delegationDepth: 0,
        visitedAgents: [],
      },
    };
    store.create(task, []);
    store.flush();
    const live = new LiveTask({ task, lastSeq: 0 }, store, [], () => undefined);
    live.setStatus('working');
    store.flush();
    expect(live.storedJson).toBeUndefined(); // not finished
    live.setStatus('completed');
    expect(live.storedJson).toBeUndefined(); // finished, not yet durable
    store.flush();
    expect(live.storedJson).toBe(JSON.stringify(store.get(task.id)!.task));
    expect(live.storedJson).toBe(JSON.stringify(live.task));
    // A late fact not yet written: the stored text is no longer this task.
    live.patchMetadata({ exitCode: 3 });
    expect(live.storedJson).toBeUndefined();
    live.saveLateFacts();
    store.flush();
    expect(live.storedJson).toBe(JSON.stringify(live.task));
    expect(JSON.parse(live.storedJson!)).toMatchObject({ metadata: { exitCode: 3 } });
  });
});
