/**
 * A group commit that is lost (the SQL fails, as on a full disk) must fail every task it held, even one
 * whose only write in that group was its creation: a task queued behind another turn of its conversation
 * has made no state change of its own yet, so nothing but its creation tells it that it was lost. And a
 * task lost while its agent works stops that agent: nobody may work on for a task its caller was told failed.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Task } from '../../main/domain/task.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend, GatedBackend } from '../fixtures/fake-backends.js';
import { agentSettings } from './core.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const send = (dispatcher: Dispatcher, text: string, blocking: boolean): Promise<Task> =>
  dispatcher.send({
    agent: 'gated',
    message: {
      kind: 'message',
      messageId: crypto.randomUUID(),
      role: 'user',
      contextId: 'one-conversation',
      parts: [{ kind: 'text', text }],
    },
    idempotent: false,
    blocking,
    delegation: {},
  });

function sabotagedStore(): SqliteTaskStore {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-review-lost-'));
  const file = join(dir, 'tasks.db');
  const store = new SqliteTaskStore({ file });
  // A real failing commit: the group's SQL aborts when it inserts the marked task (like SQLITE_FULL would).
  const saboteur = new Database(file);
  saboteur.exec(`CREATE TRIGGER lose_marked BEFORE INSERT ON tasks WHEN NEW.task_json LIKE '%lose-me%'
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END;
                 CREATE TRIGGER lose_marked_output BEFORE INSERT ON events WHEN NEW.event_json LIKE '%lose-this%'
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
  saboteur.close();
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return store;
}

it('a running turn whose task was lost is stopped: no agent works on for a task its caller was told failed', async () => {
  const store = sabotagedStore();
  let stopped!: () => void;
  const agentStopped = new Promise<string>((resolve) => (stopped = () => resolve('stopped')));
  // Its first output is a write the store cannot keep; then it works on until told to stop.
  const backend = new FakeBackend(
    (turn, report) =>
      new Promise((resolve) => {
        turn.signal.addEventListener('abort', () => {
          stopped();
          resolve({ kind: 'failed', reason: 'stopped by signal', retryable: true });
        });
        report.text('lose-this');
      }),
  );
  const registry = new AgentRegistry();
  registry.add('gated', backend, agentSettings({ appendDecisionContract: false }));
  const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
  cleanups.push(() => dispatcher.shutdown());

  await expect(send(dispatcher, 'go', true)).rejects.toThrow(/could not be stored: disk full/);
  const hung = new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('agent still running'), 10_000);
    cleanups.push(() => clearTimeout(timer));
  });
  expect(await Promise.race([agentStopped, hung])).toBe('stopped');
  expect(backend.turns).toHaveLength(1);
});

it('a task whose creation was lost never reaches its agent', async () => {
  const store = sabotagedStore();
  const backend = new GatedBackend();
  const registry = new AgentRegistry();
  registry.add('gated', backend, agentSettings({ appendDecisionContract: false }));
  const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
  cleanups.push(() => dispatcher.shutdown());

  await expect(send(dispatcher, 'lose-me', false)).rejects.toThrow(/disk full/);
  const next = await send(dispatcher, 'next', false);
  await backend.started(1);
  expect(backend.turns.map((t) => t.taskId)).toEqual([next.id]);
});

it('a blocking send whose creation was lost fails instead of waiting forever, and leaves no phantom task', async () => {
  const store = sabotagedStore();
  const registry = new AgentRegistry();
  const backend = new GatedBackend();
  registry.add('gated', backend, agentSettings({ appendDecisionContract: false }));
  const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
  cleanups.push(() => dispatcher.shutdown());

  const first = await send(dispatcher, 'first', false);
  await backend.started(1);
  // Its "working" commits in a group of its own.
  await new Promise((resolve) => setImmediate(resolve));
  // Queued behind `first` in the same conversation: its creation is its only write in this group.
  const lost = send(dispatcher, 'lose-me', true);
  const outcome = lost.then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  // Let the group holding only that creation commit (and fail) before `first` moves on.
  await new Promise((resolve) => setImmediate(resolve));
  backend.finish(0);
  const hung = new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('still waiting'), 10_000);
    cleanups.push(() => clearTimeout(timer));
  });
  expect(await Promise.race([outcome, hung])).toMatch(/could not be stored: disk full/);
  expect(dispatcher.get(first.id).status.state).toBe('completed');
  // Nothing left behind that still claims to be queued for the agent.
  expect(dispatcher.list({ pageSize: 10, includeArtifacts: false }).tasks.map((t) => t.id)).toEqual([first.id]);
  expect(backend.turns).toHaveLength(1);
});
