/**
 * Interop with the official A2A client (@a2a-js/sdk 1.3) against a running bridge, run once per
 * protocol version (interop-v1.test.ts, interop-v03.test.ts): discovery, send, stream, input-required
 * continuation, get, list (v1), cancel, and resubscribe after a dropped connection with nothing lost.
 */
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { SendMessageResult } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { partsText, sdkClient, sdkSend, type ClientMode, type SdkClient } from './sdk-client.js';

function asTask(result: SendMessageResult): Task {
  if (!('status' in result)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
}

const artifactText = (task: Task) => task.artifacts.map((a) => partsText(a.parts)).join('');

type Payload = NonNullable<StreamResponse['payload']>;

/** Reads a stream, stopping (and dropping the connection) once `stop` says so. */
async function readStream(
  stream: AsyncGenerator<StreamResponse>,
  stop: (seen: Payload[]) => boolean = () => false,
): Promise<Payload[]> {
  const seen: Payload[] = [];
  for await (const event of stream) {
    if (event.payload) seen.push(event.payload);
    if (stop(seen)) break;
  }
  return seen;
}

/** The reply text a stream carried: the snapshot's artifacts, then every artifact chunk in order. */
function streamedText(events: Payload[]): string {
  return events
    .map((e) => {
      if (e.$case === 'task') return artifactText(e.value);
      if (e.$case === 'artifactUpdate') return partsText(e.value.artifact?.parts ?? []);
      return '';
    })
    .join('');
}

const artifactCount = (events: Payload[]) => events.filter((e) => e.$case === 'artifactUpdate').length;
const lastState = (events: Payload[]) => {
  const last = events.at(-1);
  return last?.$case === 'statusUpdate'
    ? last.value.status?.state
    : last?.$case === 'task'
      ? last.value.status?.state
      : undefined;
};

/** "tick 0 tick 1 ... tick n " with no number missing or repeated. */
function expectTicksInOrder(text: string): void {
  const ticks = [...text.matchAll(/tick (\d+) /g)].map((m) => Number(m[1]));
  expect(ticks.length).toBeGreaterThan(0);
  expect(ticks).toEqual(ticks.map((_, i) => i));
}

export function interopSuite(mode: ClientMode): void {
  const label = `${mode} interop (@a2a-js/sdk${mode === 'v0.3' ? ' legacyCompat' : ''})`;
  const wireVersion = mode === 'v1' ? '1.0' : '0.3';
  const sendMethod = mode === 'v1' ? 'SendMessage' : 'message/send';
  let tb: TestBridge;
  let echo: SdkClient;
  let fake: SdkClient;

  beforeAll(async () => {
    tb = await startTestBridge({ agents: { echo: echoAgent(), fake: fakeAcpAgent() }, isolatedEnv: true });
    echo = await sdkClient(tb, 'echo', mode);
    fake = await sdkClient(tb, 'fake', mode);
  });
  afterAll(async () => {
    await tb.cleanup();
  });

  describe(label, () => {
    it(`${label}: card discovery per agent — the client resolves /agents/<name>/ and talks to that agent in ${wireVersion}`, async () => {
      expect(echo.client.protocolVersion).toBe(wireVersion);
      const card = await echo.client.getAgentCard();
      expect(card.name).toBe('echo');
      await echo.client.sendMessage(sdkSend('which endpoint?'));
      const rpc = echo.calls.filter((c) => c.method !== undefined);
      expect(rpc.at(-1)).toEqual({ path: '/agents/echo', version: wireVersion, method: sendMethod });
    });

    it(`${label}: send — a blocking send returns the completed task with its artifact`, async () => {
      const task = asTask(await echo.client.sendMessage(sdkSend('hello sdk')));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactText(task)).toContain('echo: hello sdk');
      expect(task.id).toBeTruthy();
    });

    it(`${label}: stream — the Task first, then chunks in order, closing at completed`, async () => {
      const events = await readStream(fake.client.sendMessageStream(sdkSend('long 1500')));
      expect(events[0]!.$case).toBe('task');
      expect(artifactCount(events)).toBeGreaterThan(1);
      expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(streamedText(events)).toBe(Array.from({ length: 1500 }, (_, i) => String(i % 10)).join(''));
    });

    it(`${label}: input-required continuation — answering with the task's taskId completes the task`, async () => {
      const parked = asTask(await echo.client.sendMessage(sdkSend('decide: tea|coffee')));
      expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = asTask(
        await echo.client.sendMessage(sdkSend('coffee', { taskId: parked.id, contextId: parked.contextId })),
      );
      expect(done.id).toBe(parked.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactText(done)).toContain('Going with coffee. Done.');
    });

    it(`${label}: input-required via a permission request, continued over a stream`, async () => {
      const first = await readStream(fake.client.sendMessageStream(sdkSend('permission')));
      expect(lastState(first)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const taskId = first[0]!.$case === 'task' ? first[0]!.value.id : '';
      const second = await readStream(fake.client.sendMessageStream(sdkSend('allow', { taskId })));
      expect(second[0]!.$case).toBe('task');
      expect(lastState(second)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(streamedText(second)).toContain('outcome=allow');
    });

    it(`${label}: get — getTask returns the task; historyLength 0 leaves the history out`, async () => {
      const sent = asTask(await echo.client.sendMessage(sdkSend('fetch me')));
      const got = await echo.client.getTask({ tenant: '', id: sent.id });
      expect(got.id).toBe(sent.id);
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(got.history.length).toBe(1);
      const bare = await echo.client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
      expect(bare.history).toEqual([]);
    });

    if (mode === 'v1') {
      it(`${label}: list — listTasks pages through this agent's tasks with pageToken/nextPageToken`, async () => {
        for (const text of ['l1', 'l2', 'l3']) await echo.client.sendMessage(sdkSend(text));
        const ids: string[] = [];
        let pageToken = '';
        let total: number | undefined;
        do {
          const page = await echo.client.listTasks({
            tenant: '',
            contextId: '',
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: 2,
            pageToken,
            statusTimestampAfter: undefined,
          });
          ids.push(...page.tasks.map((t) => t.id));
          pageToken = page.nextPageToken;
          total = page.totalSize;
        } while (pageToken);
        expect(ids.length).toBe(total);
        expect(new Set(ids).size).toBe(total);
        expect(total).toBeGreaterThanOrEqual(3);
      });
    } else {
      it(`${label}: list — v0.3 has no JSON-RPC tasks/list, and the SDK refuses it client-side`, async () => {
        await expect(
          echo.client.listTasks({
            tenant: '',
            contextId: '',
            status: 0,
            pageToken: '',
            statusTimestampAfter: undefined,
          }),
        ).rejects.toThrow(/tasks\/list/);
      });
    }

    it(`${label}: cancel — cancelTask on a running task returns it canceled`, async () => {
      const started = await readStream(
        fake.client.sendMessageStream(sdkSend('stream')),
        (seen) => artifactCount(seen) >= 1,
      );
      const id = started[0]!.$case === 'task' ? started[0]!.value.id : '';
      const canceled = await fake.client.cancelTask({ tenant: '', id, metadata: undefined });
      expect(canceled.id).toBe(id);
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await expect(fake.client.cancelTask({ tenant: '', id, metadata: undefined })).rejects.toThrow();
    });

    it(`${label}: resubscribe after a dropped connection — the snapshot plus the live events lose nothing`, async () => {
      const before = await readStream(
        fake.client.sendMessageStream(sdkSend('stream')),
        (seen) => artifactCount(seen) >= 3,
      );
      const id = before[0]!.$case === 'task' ? before[0]!.value.id : '';
      const after = await readStream(
        fake.client.resubscribeTask({ tenant: '', id }),
        (seen) => artifactCount(seen) >= 3,
      );
      expect(after[0]!.$case).toBe('task');
      await fake.client.cancelTask({ tenant: '', id, metadata: undefined });
      expectTicksInOrder(streamedText(after));
      expect(streamedText(after).startsWith(streamedText(before))).toBe(true);
    });

    it(`${label}: an agent's image, link and JSON reach the official client as raw, url and data parts`, async () => {
      const task = asTask(await fake.client.sendMessage(sdkSend('rich')));
      const parts = task.artifacts.flatMap((a) => a.parts).filter((p) => p.content?.$case !== 'text');
      expect(parts.map((p) => [p.content?.$case, p.mediaType, p.filename])).toEqual([
        ['raw', 'image/png', 'image-1.png'],
        ['url', 'application/pdf', 'report.pdf'],
        ['data', '', ''],
      ]);
      const [image, link, data] = parts.map((p) => p.content);
      expect(image?.$case === 'raw' && Buffer.from(image.value).subarray(1, 4).toString()).toBe('PNG');
      expect(link?.$case === 'url' && link.value).toBe('https://example.com/report.pdf');
      expect(data?.$case === 'data' && data.value).toEqual({ passed: 12, failed: 0 });
    });

    // The official client reads the error either way; the wire shape (v0.3: SSE event: error) is pinned in streaming.test.ts.
    it(`${label}: resubscribing to an unknown task fails with the SDK's task-not-found error`, async () => {
      const attempt = readStream(fake.client.resubscribeTask({ tenant: '', id: 'no-such-task' }));
      await expect(attempt).rejects.toThrow(/-32001|not found|no task/i);
    });

    it(`${label}: resubscribe with the Last-Event-ID service parameter replays exactly the missed events`, async () => {
      // Event ids of a send stream: the Task is 0, then 1, 2, ... — a client can count them.
      const before = await readStream(
        fake.client.sendMessageStream(sdkSend('stream')),
        (seen) => artifactCount(seen) >= 2,
      );
      const id = before[0]!.$case === 'task' ? before[0]!.value.id : '';
      const lastEventId = String(before.length - 1);
      const stream = fake.client.resubscribeTask(
        { tenant: '', id },
        { serviceParameters: { 'Last-Event-ID': lastEventId } },
      );
      const after = await readStream(stream, (seen) => artifactCount(seen) >= 3);
      await fake.client.cancelTask({ tenant: '', id, metadata: undefined });
      expect(after[0]!.$case).not.toBe('task');
      expectTicksInOrder(streamedText([...before, ...after]));
    });
  });
}
