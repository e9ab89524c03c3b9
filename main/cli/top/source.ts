/**
 * Where `contactor top` gets its data: a snapshot of every task (`activity/snapshot`), then the bridge's
 * event feed resumed from the snapshot's cursor (docs/contract.md#the-event-feed), so no event falls
 * between the two. A dropped connection resumes from the last cursor seen; when the bridge no longer has
 * the events after it (a restart, a long sleep), it says `reset` and a fresh snapshot replaces the table.
 * Everything goes through the bridge's HTTP with the CLI's token, like every other verb.
 */
import {
  ActivityDetailSchema,
  ActivitySnapshotSchema,
  type ActivityDetail,
  type ActivitySnapshot,
} from '../../schema/activity.js';
import { CliTaskSchema, FeedMessageSchema, type CliTask } from '../../schema/cli.js';
import { StreamDropped, type BridgeClient } from '../bridge-client/bridge-client.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Connection, FeedEvent } from './view-model.js';

/** Back-off before each reconnect; after the last one it keeps trying at that pace (the bridge may be restarting). */
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000];

export interface SourceHandlers {
  snapshot(snap: ActivitySnapshot): void;
  event(event: FeedEvent): void;
  connection(state: Connection, detail?: string): void;
}

export class TopSource {
  constructor(private readonly client: BridgeClient) {}

  snapshot(signal?: AbortSignal): Promise<ActivitySnapshot> {
    return this.client.call('activity/snapshot', {}, ActivitySnapshotSchema, signal);
  }

  detail(taskId: string): Promise<ActivityDetail> {
    return this.client.call('activity/task', { taskId }, ActivityDetailSchema);
  }

  answer(taskId: string, answer: string): Promise<CliTask> {
    return this.client.call('tasks/answer', { taskId, answer }, CliTaskSchema);
  }

  cancel(taskId: string): Promise<CliTask> {
    return this.client.call('tasks/cancel', { id: taskId }, CliTaskSchema);
  }

  /**
   * Snapshot, then the feed from its cursor, until `signal` aborts. Errors that retrying cannot fix (the
   * token is refused, the bridge does not know the methods) end it with that error.
   */
  async follow(handlers: SourceHandlers, signal: AbortSignal): Promise<void> {
    let cursor: string | undefined;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (cursor === undefined) {
          const snap = await this.snapshot(signal);
          cursor = snap.cursor;
          handlers.snapshot(snap);
        }
        const opened = (): void => {
          failures = 0;
          handlers.connection('live');
        };
        for await (const message of this.client.feed(cursor, { signal, onOpen: opened })) {
          if (message.event === 'reset') {
            cursor = undefined;
            break;
          }
          if (message.id) cursor = message.id;
          const event = feedEvent(message.data);
          if (event) handlers.event(event);
        }
        if (cursor !== undefined && !signal.aborted) throw new StreamDropped('the bridge ended the event feed');
      } catch (err) {
        if (signal.aborted) return;
        if (!retryable(err)) throw err;
        handlers.connection('reconnecting', (err as Error).message);
        const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)]!;
        failures += 1;
        await pause(delay, signal);
      }
    }
  }
}

function retryable(err: unknown): boolean {
  return err instanceof StreamDropped || (err instanceof CliError && err.exitCode === EXIT.unreachable);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The screen's view of one feed event; undefined for what it does not show. */
export function feedEvent(data: string): FeedEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  const parsed = FeedMessageSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const e = parsed.data.event;
  if (e.kind === 'status-update' && e.status) {
    const note = progressNote(e.metadata);
    return {
      kind: 'status-update',
      taskId: e.taskId,
      state: e.status.state,
      ...(e.status.timestamp ? { timestamp: e.status.timestamp } : {}),
      ...(note ? { note } : {}),
    };
  }
  if (e.kind === 'artifact-update' && e.artifact) {
    const text = e.artifact.parts.map((p) => (p.kind === 'text' && p.text ? p.text : '')).join('');
    return { kind: 'artifact-update', taskId: e.taskId, text, append: e.append === true };
  }
  return undefined;
}

function progressNote(metadata: Record<string, unknown> | undefined): string | undefined {
  if (metadata?.event !== 'progress') return undefined;
  const p = metadata.progress as { kind?: unknown; text?: unknown } | undefined;
  return typeof p?.kind === 'string' && typeof p.text === 'string' ? `${p.kind}: ${p.text}` : undefined;
}
