import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Message } from '../../main/domain/task.js';
import {
  MessageSchema,
  MessageSendParamsSchema,
  parseSendParams,
  ResubscribeParamsSchema,
  TaskIdParamsSchema,
  TaskQueryParamsSchema,
  TaskSchema,
} from '../../main/schema/a2a.js';

const message = { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

/** Every issue as "path: message", so a test can say which field was named. */
function issues(result: { success: boolean; error?: z.ZodError }): string[] {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('v0.3 message validation (A2A v0.3 §6.4, §6.5; reference §5 "inputs MUST be validated")', () => {
  it('accepts a well-formed message and types it as the internal Message', () => {
    const parsed: Message = MessageSchema.parse(message);
    expect(parsed).toEqual(message);
  });

  it('rejects empty parts, naming `parts`', () => {
    expect(issues(MessageSchema.safeParse({ ...message, parts: [] }))).toEqual(['parts: parts must not be empty']);
  });

  it('rejects a missing role, naming `role`', () => {
    const { role: _r, ...noRole } = message;
    expect(issues(MessageSchema.safeParse(noRole))).toEqual(['role: role is required ("user" or "agent")']);
  });

  it('rejects a role outside user/agent', () => {
    expect(issues(MessageSchema.safeParse({ ...message, role: 'system' }))).toEqual([
      'role: role must be "user" or "agent"',
    ]);
  });

  it('rejects a missing messageId, naming `messageId`', () => {
    const { messageId: _m, ...noId } = message;
    expect(issues(MessageSchema.safeParse(noId))).toEqual(['messageId: messageId is required (a non-empty string)']);
    expect(issues(MessageSchema.safeParse({ ...message, messageId: '' }))).toEqual([
      'messageId: messageId must not be empty',
    ]);
  });

  it('rejects an unknown part kind, naming `parts.0.kind`', () => {
    const bad = { ...message, parts: [{ kind: 'image', url: 'x' }] };
    expect(issues(MessageSchema.safeParse(bad))).toEqual(['parts.0.kind: part kind must be "text", "file" or "data"']);
  });

  it('rejects a part without kind (the v1 shape sent to a v0.3 method)', () => {
    expect(issues(MessageSchema.safeParse({ ...message, parts: [{ text: 'hi' }] }))[0]).toMatch(/^parts\.0\.kind:/);
  });

  it('rejects a data part whose data is not an object (v0.3 DataPart.data is an object)', () => {
    for (const data of [[1, 2], 'text', 3, null]) {
      const bad = { ...message, parts: [{ kind: 'data', data }] };
      expect(issues(MessageSchema.safeParse(bad))).toEqual([
        'parts.0.data: a data part needs `data` as a JSON object (v0.3)',
      ]);
    }
  });

  it('rejects a file part with neither or both of bytes and uri', () => {
    const neither = { ...message, parts: [{ kind: 'file', file: { name: 'a.txt' } }] };
    const both = { ...message, parts: [{ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x/a' } }] };
    expect(issues(MessageSchema.safeParse(neither))).toEqual([
      'parts.0.file: a file needs exactly one of `bytes` (base64) or `uri`',
    ]);
    expect(issues(MessageSchema.safeParse(both))).toHaveLength(1);
  });

  it('rejects a wrong message kind but fills in a missing one', () => {
    expect(issues(MessageSchema.safeParse({ ...message, kind: 'task' }))).toEqual([
      'kind: message kind must be "message"',
    ]);
    const { kind: _k, ...noKind } = message;
    expect(MessageSchema.parse(noKind).kind).toBe('message');
  });

  it('ignores unknown members (spec: SHOULD ignore) and drops them', () => {
    const parsed = MessageSchema.parse({
      ...message,
      futureField: 1,
      parts: [{ kind: 'text', text: 'hi', extra: true }],
    });
    expect(parsed).toEqual(message);
  });

  it('accepts all three part kinds with their optional members', () => {
    const parts = [
      { kind: 'text', text: 't', metadata: { a: 1 } },
      { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' } },
      { kind: 'file', file: { uri: 'https://example.com/a.png' } },
      { kind: 'data', data: { x: [1] } },
    ];
    expect(MessageSchema.parse({ ...message, parts }).parts).toEqual(parts);
  });
});

describe('v0.3 send params', () => {
  it('rejects a negative historyLength, naming `configuration.historyLength`', () => {
    const params = { message, configuration: { historyLength: -1 } };
    expect(issues(MessageSendParamsSchema.safeParse(params))).toEqual([
      'configuration.historyLength: historyLength must be 0 or more (0 = no history)',
    ]);
  });

  it('accepts the full configuration', () => {
    const configuration = {
      blocking: false,
      historyLength: 0,
      acceptedOutputModes: ['text/plain'],
      pushNotificationConfig: { url: 'https://hook', token: 't', authentication: { schemes: ['Bearer'] } },
    };
    expect(MessageSendParamsSchema.parse({ message, configuration, metadata: { agent: 'a' } })).toEqual({
      message,
      configuration,
      metadata: { agent: 'a' },
    });
  });

  it('parseSendParams picks the standard form when `message` is present', () => {
    const r = parseSendParams({ message, metadata: { agent: 'codex' } });
    expect(r).toEqual({ success: true, data: { form: 'message', params: { message, metadata: { agent: 'codex' } } } });
  });

  it('parseSendParams picks the shorthand form and reports its own fields', () => {
    const ok = parseSendParams({ agent: 'codex', text: 'do it', delegationDepth: 1, visitedAgents: ['claude'] });
    expect(ok).toEqual({
      success: true,
      data: {
        form: 'shorthand',
        params: { agent: 'codex', text: 'do it', delegationDepth: 1, visitedAgents: ['claude'] },
      },
    });
    expect(issues(parseSendParams({ agent: 'codex' }))).toEqual(['text: text is required (what to send the agent)']);
    expect(issues(parseSendParams({ text: 'x', agent: 'a', delegationDepth: -1 }))).toEqual([
      'delegationDepth: delegationDepth must be 0 or more',
    ]);
  });

  it('parseSendParams on garbage reports the missing message', () => {
    expect(issues(parseSendParams({}))[0]).toMatch(/^message:/);
    expect(parseSendParams(null).success).toBe(false);
  });
});

describe('v0.3 task params', () => {
  it('tasks/get takes id or its alias taskId, and historyLength ≥ 0', () => {
    expect(TaskQueryParamsSchema.parse({ id: 't1', historyLength: 2 })).toEqual({ id: 't1', historyLength: 2 });
    expect(TaskQueryParamsSchema.parse({ taskId: 't1' })).toEqual({ id: 't1' });
    expect(issues(TaskQueryParamsSchema.safeParse({}))).toEqual(['id: id is required (the task id)']);
    expect(issues(TaskQueryParamsSchema.safeParse({ id: 't', historyLength: -3 }))).toEqual([
      'historyLength: historyLength must be 0 or more (0 = no history)',
    ]);
  });

  it('tasks/cancel needs an id', () => {
    expect(TaskIdParamsSchema.parse({ id: 't1', metadata: { why: 'x' } })).toEqual({
      id: 't1',
      metadata: { why: 'x' },
    });
    expect(issues(TaskIdParamsSchema.safeParse({ id: '' }))).toEqual(['id: id must not be empty']);
  });

  it('tasks/resubscribe reads the resume cursor from metadata.afterSeq', () => {
    expect(ResubscribeParamsSchema.parse({ id: 't1', metadata: { afterSeq: 4 } })).toEqual({
      id: 't1',
      metadata: { afterSeq: 4 },
    });
    expect(issues(ResubscribeParamsSchema.safeParse({ id: 't1', metadata: { afterSeq: -1 } }))).toEqual([
      'metadata.afterSeq: metadata.afterSeq must be 0 or more',
    ]);
  });
});

describe('v0.3 task', () => {
  it('parses a task and fills the arrays a minimal task leaves out', () => {
    const task = TaskSchema.parse({ id: 't', contextId: 'c', status: { state: 'working' } });
    expect(task).toEqual({
      kind: 'task',
      id: 't',
      contextId: 'c',
      status: { state: 'working' },
      history: [],
      artifacts: [],
      metadata: {},
    });
  });

  it('rejects an unknown state', () => {
    expect(issues(TaskSchema.safeParse({ id: 't', contextId: 'c', status: { state: 'done' } }))[0]).toMatch(
      /^status\.state:/,
    );
  });
});
