/**
 * Following one task to its next stop (terminal, or waiting for input): read its stream, and when the
 * connection drops, resume after the last event seen with `tasks/resubscribe` + Last-Event-ID
 * (docs/contract.md#streaming), so nothing is missed or repeated. The final task comes from `tasks/get`.
 */
import { isSettled, type TaskState } from '../../domain/task.js';
import { CliTaskSchema, type CliTask, type StreamResult } from '../../schema/cli.js';
import { BridgeClient, StreamDropped, unreachable } from './bridge-client.js';
import { CliError, EXIT } from '../exit-codes.js';

export interface FollowStart {
  method: string;
  params: unknown;
}

export interface FollowOptions {
  /** Sees every event once, in order. */
  onEvent?: (result: StreamResult) => void;
  /** Client-side limit on the whole wait, in ms. */
  timeoutMs?: number;
  /** Stops following (Ctrl-C): the wait ends with `Interrupted`, naming the task if it was known. */
  signal?: AbortSignal;
}

/** The wait was stopped from outside; `taskId` is undefined when no event had named the task yet. */
export class Interrupted extends Error {
  constructor(readonly taskId: string | undefined) {
    super(taskId ? `stopped following task ${taskId}` : 'stopped before the bridge named the task');
    this.name = 'Interrupted';
  }
}

/** Back-off before each resume; a bridge that stays away this long is reported as unreachable. */
const RESUME_DELAYS_MS = [100, 250, 500, 1000, 2000, 4000];

export async function followTask(client: BridgeClient, start: FollowStart, opts: FollowOptions = {}): Promise<CliTask> {
  const limit = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
  const signals = [limit, opts.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  let taskId: string | undefined;
  let lastSeq: number | undefined;
  let attempt = 0;
  for (;;) {
    const request: FollowStart = taskId === undefined ? start : { method: 'tasks/resubscribe', params: { id: taskId } };
    try {
      for await (const event of client.stream(request.method, request.params, {
        ...(lastSeq !== undefined && taskId !== undefined ? { lastEventId: lastSeq } : {}),
        ...(signal ? { signal } : {}),
      })) {
        attempt = 0;
        if (event.seq !== undefined) lastSeq = event.seq;
        taskId = event.result.kind === 'task' ? event.result.id : event.result.taskId;
        opts.onEvent?.(event.result);
        if (endsStream(event.result)) return await client.call('tasks/get', { id: taskId }, CliTaskSchema, signal);
      }
      throw new StreamDropped('the stream ended before the task stopped');
    } catch (err) {
      if (opts.signal?.aborted) throw new Interrupted(taskId);
      if (signal?.aborted) throw timedOut(taskId, opts.timeoutMs ?? 0);
      // The bridge refuses to subscribe to a finished task (-32004): it stopped before we got there.
      if (err instanceof CliError && err.rpc?.code === -32004 && request.method === 'tasks/resubscribe') {
        return client.call('tasks/get', request.params, CliTaskSchema, signal);
      }
      // Before the first event the task may not exist, and re-sending could run it twice.
      const resumable = err instanceof StreamDropped || (err instanceof CliError && err.exitCode === EXIT.unreachable);
      if (resumable && taskId === undefined && err instanceof StreamDropped) {
        throw new CliError(
          `the bridge at ${client.address.url} dropped the stream before its first event (${err.message}); check it with \`contactor status\`, then repeat the command (a send with the same --message-id)`,
          EXIT.unreachable,
        );
      }
      if (!resumable || taskId === undefined) throw err;
      const delay = RESUME_DELAYS_MS[attempt];
      if (delay === undefined) throw unreachable(client.address.url, err);
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (opts.signal?.aborted) throw new Interrupted(taskId);
    }
  }
}

/** The end of an interaction (A2A §3.1.2): a final status, or a snapshot already at a stop. */
function endsStream(result: StreamResult): boolean {
  if (result.kind === 'status-update') return result.final;
  if (result.kind === 'task') return stopsAt(result.status.state);
  return false;
}

export function stopsAt(state: TaskState | 'unknown'): boolean {
  return state === 'unknown' || isSettled(state);
}

function timedOut(taskId: string | undefined, ms: number): CliError {
  const follow = taskId ? `; it keeps running: \`contactor watch ${taskId}\`` : '';
  return new CliError(`gave up waiting after ${ms / 1000}s (--timeout)${follow}`, EXIT.failed);
}
