import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CancelTaskRequestV1Schema,
  GetTaskRequestV1Schema,
  ListTasksRequestV1Schema,
  MessageV1Schema,
  SendMessageRequestV1Schema,
  StreamResponseV1Schema,
  SubscribeToTaskRequestV1Schema,
} from '../../main/schema/a2a-v1.js';

const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

function issues(result: { success: boolean; error?: z.ZodError }): string[] {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('v1 message validation (A2A v1 §4.1.4 Message, §4.1.6 Part; reference §5)', () => {
  it('accepts a well-formed message', () => {
    expect(MessageV1Schema.parse(message)).toEqual(message);
  });

  it('rejects empty parts, naming `parts`', () => {
    expect(issues(MessageV1Schema.safeParse({ ...message, parts: [] }))).toEqual(['parts: parts must not be empty']);
  });

  it('rejects a missing role and a v0.3 role', () => {
    const { role: _r, ...noRole } = message;
    expect(issues(MessageV1Schema.safeParse(noRole))).toEqual(['role: role is required ("ROLE_USER" or "ROLE_AGENT")']);
    expect(issues(MessageV1Schema.safeParse({ ...message, role: 'user' }))).toEqual([
      'role: role must be "ROLE_USER" or "ROLE_AGENT"',
    ]);
  });

  it('rejects a missing messageId', () => {
    const { messageId: _m, ...noId } = message;
    expect(issues(MessageV1Schema.safeParse(noId))).toEqual(['messageId: messageId is required (a non-empty string)']);
  });

  it('rejects a part with none of text/raw/url/data (the oneof is unset)', () => {
    expect(issues(MessageV1Schema.safeParse({ ...message, parts: [{ mediaType: 'text/plain' }] }))).toEqual([
      'parts.0: a part needs one of text, raw, url or data',
    ]);
    expect(issues(MessageV1Schema.safeParse({ ...message, parts: [{ kind: 'text', textt: 'x' }] }))).toHaveLength(1);
  });

  it('rejects a part with more than one of text/raw/url/data', () => {
    expect(issues(MessageV1Schema.safeParse({ ...message, parts: [{ text: 'a', url: 'https://x' }] }))).toEqual([
      'parts.0: a part holds exactly one of text, raw, url or data, not text and url',
    ]);
  });

  it('accepts every oneof member, data as any JSON value, and the shared optional members', () => {
    const parts = [
      { text: 't', metadata: { k: 1 } },
      { raw: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' },
      { url: 'https://example.com/a.png', mediaType: 'image/png' },
      { data: { x: 1 } },
      { data: [1, 2] },
      { data: 'str' },
      { data: null },
    ];
    expect(MessageV1Schema.parse({ ...message, parts }).parts).toEqual(parts);
  });

  it('rejects raw that is not base64', () => {
    expect(issues(MessageV1Schema.safeParse({ ...message, parts: [{ raw: 'not base64!' }] }))).toEqual([
      'parts.0.raw: raw must be base64',
    ]);
  });

  it('ignores unknown members, including a stray v0.3 `kind`', () => {
    expect(MessageV1Schema.parse({ ...message, kind: 'message', parts: [{ text: 'hi', kind: 'text' }] })).toEqual(
      message,
    );
  });
});

describe('v1 requests', () => {
  it('SendMessageRequest: configuration.historyLength must not be negative', () => {
    expect(issues(SendMessageRequestV1Schema.safeParse({ message, configuration: { historyLength: -1 } }))).toEqual([
      'configuration.historyLength: historyLength must be 0 or more (0 = no history)',
    ]);
  });

  it('SendMessageRequest: accepts returnImmediately, acceptedOutputModes, metadata, tenant', () => {
    const req = {
      message,
      configuration: { returnImmediately: true, historyLength: 3, acceptedOutputModes: ['text/plain'] },
      metadata: { agent: 'codex' },
      tenant: '',
    };
    expect(SendMessageRequestV1Schema.parse(req)).toEqual(req);
  });

  it('GetTaskRequest needs id; historyLength ≥ 0', () => {
    expect(GetTaskRequestV1Schema.parse({ id: 't', historyLength: 0 })).toEqual({ id: 't', historyLength: 0 });
    expect(issues(GetTaskRequestV1Schema.safeParse({}))).toEqual(['id: id is required (the task id)']);
    expect(issues(GetTaskRequestV1Schema.safeParse({ id: 't', historyLength: -1 }))[0]).toMatch(/^historyLength:/);
  });

  it('ListTasksRequest: defaults pageSize 50 and includeArtifacts false (v1 §3.1.4)', () => {
    expect(ListTasksRequestV1Schema.parse({})).toEqual({ pageSize: 50, includeArtifacts: false });
  });

  it('ListTasksRequest: pageSize outside 1–100 is rejected with the range', () => {
    for (const pageSize of [0, 101, 500]) {
      expect(issues(ListTasksRequestV1Schema.safeParse({ pageSize }))).toEqual([
        'pageSize: pageSize must be between 1 and 100',
      ]);
    }
  });

  it('ListTasksRequest: filters are typed', () => {
    const req = {
      contextId: 'c',
      status: 'TASK_STATE_WORKING',
      pageSize: 10,
      pageToken: 'tok',
      historyLength: 1,
      statusTimestampAfter: '2026-01-02T03:04:05.000Z',
      includeArtifacts: true,
    };
    expect(ListTasksRequestV1Schema.parse(req)).toEqual(req);
    expect(issues(ListTasksRequestV1Schema.safeParse({ status: 'working' }))).toEqual([
      'status: state must be a TASK_STATE_* name',
    ]);
    expect(issues(ListTasksRequestV1Schema.safeParse({ statusTimestampAfter: 'yesterday' }))).toEqual([
      'statusTimestampAfter: statusTimestampAfter must be an ISO-8601 timestamp',
    ]);
  });

  it('CancelTaskRequest and SubscribeToTaskRequest need id; subscribe takes metadata.afterSeq', () => {
    expect(CancelTaskRequestV1Schema.parse({ id: 't' })).toEqual({ id: 't' });
    expect(issues(CancelTaskRequestV1Schema.safeParse({ id: '' }))).toEqual(['id: id must not be empty']);
    expect(SubscribeToTaskRequestV1Schema.parse({ id: 't', metadata: { afterSeq: 7, other: 'kept' } })).toEqual({
      id: 't',
      metadata: { afterSeq: 7, other: 'kept' },
    });
  });
});

describe('v1 StreamResponse (v1 §3.2.3: exactly one member)', () => {
  it('rejects none, two, or an unknown member', () => {
    expect(StreamResponseV1Schema.safeParse({}).success).toBe(false);
    const task = { id: 't', status: { state: 'TASK_STATE_WORKING' } };
    expect(StreamResponseV1Schema.safeParse({ task, message }).success).toBe(false);
    expect(StreamResponseV1Schema.safeParse({ task, final: true }).success).toBe(false);
    expect(StreamResponseV1Schema.safeParse({ task }).success).toBe(true);
  });
});
