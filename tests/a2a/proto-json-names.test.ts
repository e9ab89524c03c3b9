/**
 * v1 params are ProtoJSON: a parser accepts both the lowerCamelCase JSON name and the original proto field
 * name (proto3 JSON mapping), at every depth; one field under both names is refused (-32602). The
 * conformance kit's JSON-RPC client sends the proto names (`history_length`, `context_id`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { call, stateOf } from './wire.js';

let tb: TestBridge;
const V1 = '1.0';
const ECHO = { path: '/agents/echo' };

beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent() }, isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

/**
 * a2a-tck tests/compatibility/_task_helpers.py create_multiturn_task: a task parked in input-required,
 * then completed by a follow-up message with its taskId — so its history holds several messages.
 */
async function multiTurnTask(): Promise<{ id: string; contextId: string }> {
  const parked = await call(
    tb,
    V1,
    'SendMessage',
    { message: { role: 'ROLE_USER', parts: [{ text: 'decide: red|blue' }], message_id: crypto.randomUUID() } },
    ECHO,
  );
  expect(parked.error).toBeUndefined();
  expect(stateOf(parked.result.task)).toBe('input-required');
  const id = parked.result.task.id as string;
  const done = await call(
    tb,
    V1,
    'SendMessage',
    { message: { role: 'ROLE_USER', parts: [{ text: 'blue' }], message_id: crypto.randomUUID(), task_id: id } },
    ECHO,
  );
  expect(done.error).toBeUndefined();
  expect(stateOf(done.result.task)).toBe('completed');
  return { id, contextId: done.result.task.contextId as string };
}

describe('ProtoJSON field names in v1 params', () => {
  // a2a-tck tests/compatibility/core_operations/test_task_history.py test_get_task_history_does_not_exceed_limit.
  it('CORE-HIST-002: GetTask {history_length: 1} returns at most one history message', async () => {
    const { id } = await multiTurnTask();
    const all = await call(tb, V1, 'GetTask', { id });
    expect(all.result.history.length).toBeGreaterThan(1);
    const limited = await call(tb, V1, 'GetTask', { id, history_length: 1 });
    expect(limited.error).toBeUndefined();
    expect(limited.result.history).toHaveLength(1);
    expect(limited.result.history[0]).toEqual(all.result.history.at(-1));
  });

  it('nested proto names are read too: message.message_id, configuration.accepted_output_modes / history_length / return_immediately', async () => {
    const messageId = crypto.randomUUID();
    const sent = await call(
      tb,
      V1,
      'SendMessage',
      {
        message: {
          role: 'ROLE_USER',
          parts: [{ text: 'hello', media_type: 'text/plain' }],
          message_id: messageId,
          reference_task_ids: ['t-ref'],
          metadata: { caller_note: 'kept as given' },
        },
        configuration: { accepted_output_modes: ['text/plain'], history_length: 0, return_immediately: false },
      },
      ECHO,
    );
    expect(sent.error).toBeUndefined();
    const task = sent.result.task;
    expect(stateOf(task)).toBe('completed'); // return_immediately: false waited for the end
    expect(task.history).toBeUndefined(); // history_length: 0
    const got = await call(tb, V1, 'GetTask', { id: task.id });
    const first = got.result.history[0];
    expect(first.messageId).toBe(messageId);
    expect(first.referenceTaskIds).toEqual(['t-ref']);
    // Struct members are the caller's own keys: not renamed.
    expect(first.metadata).toMatchObject({ caller_note: 'kept as given' });
  });

  it('ListTasks {context_id, page_size, include_artifacts} filters by the proto names', async () => {
    const { id, contextId } = await multiTurnTask();
    const page = await call(tb, V1, 'ListTasks', { context_id: contextId, page_size: 5, include_artifacts: true });
    expect(page.error).toBeUndefined();
    expect(page.result.tasks.map((t: { id: string }) => t.id)).toEqual([id]);
    expect(page.result.pageSize).toBe(5);
    expect(page.result.tasks[0].artifacts).toBeDefined();
  });

  it('a field under both names is -32602 naming both, at the top and nested', async () => {
    const { id } = await multiTurnTask();
    const top = await call(tb, V1, 'GetTask', { id, historyLength: 1, history_length: 2 });
    expect(top.error?.code).toBe(-32602);
    expect(top.error?.message).toContain('"historyLength" and "history_length"');
    const nested = await call(
      tb,
      V1,
      'SendMessage',
      { message: { role: 'ROLE_USER', parts: [{ text: 'x' }], messageId: 'a', message_id: 'b' } },
      ECHO,
    );
    expect(nested.error?.code).toBe(-32602);
    expect(nested.error?.message).toContain('message.messageId');
  });

  it('v0.3 methods keep their own JSON: a proto name there is just an unknown member', async () => {
    const { id } = await multiTurnTask();
    const got = await call(tb, '0.3', 'tasks/get', { id, history_length: 1 });
    expect(got.result.history.length).toBeGreaterThan(1);
  });
});
