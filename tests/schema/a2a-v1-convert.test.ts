import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { artifactUpdate, statusUpdate } from '../../main/domain/events.js';
import { TASK_STATES, type Message, type Part, type Task } from '../../main/domain/task.js';
import { MessageSchema, TaskSchema } from '../../main/schema/a2a.js';
import {
  ArtifactV1Schema,
  ListTasksRequestV1Schema,
  ListTasksResponseV1Schema,
  MessageV1Schema,
  SendMessageRequestV1Schema,
  SendMessageResponseV1Schema,
  StreamResponseV1Schema,
  TaskV1Schema,
  type MessageV1,
  type TaskV1,
} from '../../main/schema/a2a-v1.js';
import {
  applyHistoryLength,
  artifactFromV1,
  artifactToV1,
  getTaskResultToV1,
  listQueryFromV1,
  listTasksResultToV1,
  messageFromV1,
  messageToV1,
  partFromV1,
  partToV1,
  sendMessageResultToV1,
  sendRequestFromV1,
  sendRequestToV1,
  streamEventToV1,
  taskFromV1,
  taskStateFromV1,
  taskStateToV1,
  taskToV1,
  toV1Timestamp,
} from '../../main/transport/a2a-v1-convert.js';
import { streamEventToV03 } from '../../main/transport/a2a-v03.js';

const V1_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const userMessage = (messageId: string, text: string): Message => ({
  kind: 'message',
  messageId,
  role: 'user',
  parts: [{ kind: 'text', text }],
  contextId: 'c1',
  taskId: 't1',
});

function sampleTask(): Task {
  return {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: {
      state: 'input-required',
      timestamp: '2026-03-01T10:00:00.123Z',
      message: {
        kind: 'message',
        messageId: 'a9',
        role: 'agent',
        parts: [{ kind: 'text', text: 'A or B?' }],
        taskId: 't1',
        contextId: 'c1',
      },
    },
    history: [userMessage('m1', 'one'), userMessage('m2', 'two'), userMessage('m3', 'three')],
    artifacts: [
      {
        artifactId: 'a1',
        name: 'reply',
        parts: [
          { kind: 'text', text: 'done' },
          { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
          { kind: 'data', data: { ok: true } },
        ],
        metadata: { chunked: true },
      },
    ],
    metadata: {
      agent: 'codex',
      requiresReview: true,
      createdAt: '2026-03-01T09:59:59.000Z',
      delegationDepth: 0,
      visitedAgents: [],
    },
  };
}

// ───────────────────────── arbitraries ─────────────────────────

/**
 * Object keys for the properties below. `__proto__` is left out on purpose: a JSON `"__proto__"` member is
 * dropped where objects are rebuilt (zod's record parsing, spreads into new objects) — the safe outcome
 * against prototype pollution, so it cannot round-trip and is not asked to.
 */
const keyArb = (constraints: { minLength?: number; maxLength?: number } = {}) =>
  fc.string(constraints).filter((k) => k !== '__proto__');

const metadataArb = fc.option(fc.dictionary(keyArb({ minLength: 1, maxLength: 5 }), fc.integer()), {
  nil: undefined,
});
const partArb: fc.Arbitrary<Part> = fc.oneof(
  fc.record(
    { kind: fc.constant('text' as const), text: fc.string(), metadata: metadataArb },
    { requiredKeys: ['kind', 'text'] },
  ),
  fc.record(
    {
      kind: fc.constant('file' as const),
      file: fc.oneof(
        fc.record(
          {
            bytes: fc.base64String(),
            mimeType: fc.constantFrom('text/plain', 'image/png'),
            name: fc.string({ minLength: 1 }),
          },
          { requiredKeys: ['bytes'] },
        ),
        fc.record(
          { uri: fc.webUrl(), mimeType: fc.constant('image/png'), name: fc.string({ minLength: 1 }) },
          { requiredKeys: ['uri'] },
        ),
      ),
      metadata: metadataArb,
    },
    { requiredKeys: ['kind', 'file'] },
  ),
  fc.record(
    { kind: fc.constant('data' as const), data: fc.dictionary(keyArb(), fc.jsonValue()), metadata: metadataArb },
    { requiredKeys: ['kind', 'data'] },
  ),
);
const messageArb: fc.Arbitrary<Message> = fc.record(
  {
    kind: fc.constant('message' as const),
    messageId: fc.uuid(),
    role: fc.constantFrom('user' as const, 'agent' as const),
    parts: fc.array(partArb, { minLength: 1, maxLength: 4 }),
    contextId: fc.uuid(),
    taskId: fc.uuid(),
    referenceTaskIds: fc.array(fc.uuid(), { minLength: 1, maxLength: 2 }),
    metadata: fc.dictionary(keyArb({ minLength: 1 }), fc.string()),
  },
  { requiredKeys: ['kind', 'messageId', 'role', 'parts'] },
);

/** JSON round trip: what actually crosses the wire (drops undefined members). */
const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('parts (v1 §4.1.6): text | raw | url | data ↔ v0.3 kinds', () => {
  it('maps file bytes → raw, uri → url, mimeType → mediaType, name → filename', () => {
    expect(partToV1({ kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'a.txt' } })).toEqual({
      raw: 'aGk=',
      mediaType: 'text/plain',
      filename: 'a.txt',
    });
    expect(partToV1({ kind: 'file', file: { uri: 'https://x/a.png' }, metadata: { m: 1 } })).toEqual({
      url: 'https://x/a.png',
      metadata: { m: 1 },
    });
    expect(partToV1({ kind: 'text', text: 'hi' })).toEqual({ text: 'hi' });
    expect(partToV1({ kind: 'data', data: { a: 1 } })).toEqual({ data: { a: 1 } });
  });

  it('round-trips internal → v1 → internal for any part, and the v1 form is valid', () => {
    fc.assert(
      fc.property(partArb, (part) => {
        const v1 = partToV1(part);
        expect(MessageV1Schema.shape.parts.element.safeParse(v1).success).toBe(true);
        expect(wire(partFromV1(v1))).toEqual(wire(part));
      }),
    );
  });

  it('round-trips v1 → internal → v1 for every oneof member', () => {
    const parts = [
      { text: 'x' },
      { raw: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' },
      { url: 'https://x/y', mediaType: 'image/png' },
      { data: { k: [1, 2] }, metadata: { m: 'v' } },
    ];
    for (const p of parts) expect(partToV1(partFromV1(p))).toEqual(p);
  });

  it('wraps a v1 data value that is not an object, since v0.3 data must be one', () => {
    expect(partFromV1({ data: [1, 2] })).toEqual({ kind: 'data', data: { value: [1, 2] } });
    expect(partFromV1({ data: 'x' })).toEqual({ kind: 'data', data: { value: 'x' } });
  });
});

describe('messages (v1 §4.1.4): ROLE_* and no `kind`', () => {
  it('converts role and drops kind', () => {
    const v1 = messageToV1(userMessage('m1', 'hi'));
    expect(v1).toEqual({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'c1', taskId: 't1' });
    expect(v1).not.toHaveProperty('kind');
  });

  it('round-trips internal → v1 → internal (property)', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const v1 = messageToV1(m);
        expect(MessageV1Schema.parse(wire(v1))).toEqual(wire(v1));
        const back = messageFromV1(v1);
        expect(wire(back)).toEqual(wire(m));
        expect(MessageSchema.safeParse(back).success).toBe(true);
      }),
    );
  });

  it('round-trips v1 → internal → v1', () => {
    const v1: MessageV1 = {
      messageId: 'm',
      role: 'ROLE_AGENT',
      parts: [{ text: 'a' }, { url: 'https://f' }],
      referenceTaskIds: ['t0'],
      metadata: { x: 1 },
    };
    expect(messageToV1(messageFromV1(v1))).toEqual(v1);
  });

  it('treats empty-string ids (ProtoJSON defaults some emitters still send) as unset', () => {
    const m = messageFromV1({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }], contextId: '', taskId: '' });
    expect(m).not.toHaveProperty('contextId');
    expect(m).not.toHaveProperty('taskId');
  });
});

describe('artifacts', () => {
  it('round-trips both ways and the v1 form is valid', () => {
    const artifact = sampleTask().artifacts[0]!;
    const v1 = artifactToV1(artifact);
    expect(ArtifactV1Schema.parse(v1)).toEqual(v1);
    expect(artifactFromV1(v1)).toEqual(artifact);
    expect(artifactToV1(artifactFromV1(v1))).toEqual(v1);
  });
});

describe('tasks (v1 §4.1.1–4.1.3): TASK_STATE_* and no `kind`', () => {
  it('maps every state both ways; UNSPECIFIED ↔ unknown', () => {
    for (const s of TASK_STATES) expect(taskStateFromV1(taskStateToV1(s))).toBe(s);
    expect(taskStateToV1('input-required')).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(taskStateToV1('auth-required')).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(taskStateFromV1('TASK_STATE_UNSPECIFIED')).toBe('unknown');
  });

  it('converts a task: states, no kind, valid v1, timestamp as YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    const v1 = taskToV1(sampleTask());
    expect(TaskV1Schema.parse(v1)).toEqual(v1);
    expect(v1).not.toHaveProperty('kind');
    expect(v1.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(v1.status.timestamp).toMatch(V1_TIMESTAMP);
    expect(v1.history?.[0]?.role).toBe('ROLE_USER');
  });

  it('normalises a timestamp with an offset or without milliseconds to UTC with ms and Z', () => {
    expect(toV1Timestamp('2026-03-01T12:00:00+02:00')).toBe('2026-03-01T10:00:00.000Z');
    expect(toV1Timestamp('2026-03-01T10:00:00Z')).toBe('2026-03-01T10:00:00.000Z');
  });

  it('round-trips internal → v1 → internal', () => {
    const task = sampleTask();
    expect(taskFromV1(taskToV1(task))).toEqual(task);
    expect(TaskSchema.safeParse(taskFromV1(taskToV1(task))).success).toBe(true);
  });

  it('round-trips v1 → internal → v1', () => {
    const v1: TaskV1 = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
      metadata: { agent: 'x' },
    };
    const back = taskFromV1(v1);
    expect(back.history).toEqual([]);
    expect(taskToV1(back as Task)).toEqual(v1);
  });

  it('leaves out empty history and artifacts, as ProtoJSON does', () => {
    const v1 = taskToV1({ ...sampleTask(), history: [], artifacts: [] });
    expect(v1).not.toHaveProperty('history');
    expect(v1).not.toHaveProperty('artifacts');
  });
});

describe('applyHistoryLength (v1 §3.2.4 / reference §5)', () => {
  const ids = (t: Task) => t.history.map((m) => m.messageId);

  it('unset = all, 0 = none, n = the newest n, n > length = all', () => {
    const task = sampleTask();
    expect(ids(applyHistoryLength(task))).toEqual(['m1', 'm2', 'm3']);
    expect(ids(applyHistoryLength(task, 0))).toEqual([]);
    expect(ids(applyHistoryLength(task, 2))).toEqual(['m2', 'm3']);
    expect(ids(applyHistoryLength(task, 10))).toEqual(['m1', 'm2', 'm3']);
    expect(taskToV1(applyHistoryLength(task, 0))).not.toHaveProperty('history');
  });

  it('never mutates the task it is given', () => {
    const task = sampleTask();
    applyHistoryLength(task, 1).history.push(userMessage('x', 'x'));
    expect(ids(task)).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('results and stream events (v1 §3.1.1, §3.1.2, §4.2)', () => {
  const task = sampleTask();

  it('SendMessage result is {task}; GetTask result is the bare task', () => {
    const sent = sendMessageResultToV1(task);
    expect(SendMessageResponseV1Schema.parse(sent)).toEqual(sent);
    expect(Object.keys(sent)).toEqual(['task']);
    expect(getTaskResultToV1(task)).toEqual(sent.task);
  });

  it('the first stream event wraps the task: {task}', () => {
    const ev = streamEventToV1({ kind: 'task', seq: 1, task });
    expect(StreamResponseV1Schema.parse(ev)).toEqual(ev);
    expect(ev.task?.id).toBe('t1');
  });

  it('a status update becomes {statusUpdate} without final', () => {
    const status = { state: 'completed' as const, timestamp: '2026-03-01T10:00:01.000Z' };
    const ev = streamEventToV1(statusUpdate(task, 5, status, true, { note: 'x' }));
    expect(ev).toEqual({
      statusUpdate: {
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-03-01T10:00:01.000Z' },
        metadata: { note: 'x' },
      },
    });
    expect(StreamResponseV1Schema.safeParse(ev).success).toBe(true);
  });

  it('an artifact update becomes {artifactUpdate} with append and lastChunk', () => {
    const artifact = { artifactId: 'a1', parts: [{ kind: 'text' as const, text: 'chunk' }] };
    const ev = streamEventToV1(artifactUpdate(task, 6, artifact, { append: true, lastChunk: false }));
    expect(ev).toEqual({
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a1', parts: [{ text: 'chunk' }] },
        append: true,
        lastChunk: false,
      },
    });
    expect(StreamResponseV1Schema.safeParse(ev).success).toBe(true);
  });

  it('v0.3 events keep kind and final but not seq (seq travels as the SSE id)', () => {
    const status = { state: 'working' as const, timestamp: '2026-03-01T10:00:01.000Z' };
    expect(streamEventToV03(statusUpdate(task, 2, status, false))).toEqual({
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status,
      final: false,
    });
    expect(streamEventToV03({ kind: 'task', seq: 1, task })).toBe(task);
  });

  it('ListTasks: artifacts absent without includeArtifacts, history trimmed, page fields present', () => {
    const page = { tasks: [task], nextPageToken: '', totalSize: 1 };
    const plain = listTasksResultToV1(page, { pageSize: 50, includeArtifacts: false, historyLength: 1 });
    expect(ListTasksResponseV1Schema.parse(plain)).toEqual(plain);
    expect(plain.tasks[0]).not.toHaveProperty('artifacts');
    expect(plain.tasks[0]?.history?.map((m) => m.messageId)).toEqual(['m3']);
    expect(plain).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 1 });
    const full = listTasksResultToV1(page, { pageSize: 50, includeArtifacts: true });
    expect(full.tasks[0]?.artifacts).toHaveLength(1);
    expect(full.tasks[0]?.history).toHaveLength(3);
  });
});

describe('requests', () => {
  it('SendMessageRequest → internal params: returnImmediately ↔ blocking, push config flattened', () => {
    const req = SendMessageRequestV1Schema.parse({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'go' }], contextId: 'c' },
      configuration: {
        returnImmediately: true,
        historyLength: 2,
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: {
          url: 'https://hook',
          token: 'tok',
          authentication: { scheme: 'Bearer', credentials: 'x' },
        },
      },
      metadata: { agent: 'codex' },
      tenant: 'ignored',
    });
    const params = sendRequestFromV1(req);
    expect(params).toEqual({
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'go' }], contextId: 'c' },
      configuration: {
        blocking: false,
        historyLength: 2,
        acceptedOutputModes: ['text/plain'],
        pushNotificationConfig: {
          url: 'https://hook',
          token: 'tok',
          authentication: { schemes: ['Bearer'], credentials: 'x' },
        },
      },
      metadata: { agent: 'codex' },
    });
    const { tenant: _t, ...withoutTenant } = req;
    expect(sendRequestToV1(params)).toEqual(withoutTenant);
  });

  it('ListTasksRequest → store query', () => {
    const req = ListTasksRequestV1Schema.parse({
      contextId: 'c',
      status: 'TASK_STATE_INPUT_REQUIRED',
      pageToken: 'p',
      statusTimestampAfter: '2026-01-01T02:00:00+02:00',
    });
    expect(listQueryFromV1(req)).toEqual({
      contextId: 'c',
      states: ['input-required'],
      updatedAfter: '2026-01-01T00:00:00.000Z',
      pageSize: 50,
      pageToken: 'p',
      includeArtifacts: false,
    });
    expect(listQueryFromV1(ListTasksRequestV1Schema.parse({ status: 'TASK_STATE_UNSPECIFIED' }))).toEqual({
      pageSize: 50,
      includeArtifacts: false,
    });
  });
});
