import { BridgeError } from '../domain/errors.js';
import type { StreamEvent } from '../domain/events.js';
import { isSettled, isTerminal, type Task } from '../domain/task.js';
import type { Dispatcher, SendRequest } from '../runtime/dispatcher.js';
import { StreamReply } from './rpc-types.js';

/**
 * When a stream has carried its last event. Each streaming method follows its own spec sentence, quoted
 * where the method picks its rule (methods-v1.ts, methods-v03.ts).
 */
export type StreamEnd = (event: StreamEvent) => boolean;

/** At a terminal or an interrupted state: the end of one interaction (v1 send, the v0.3 `final` rule). */
export const endsAtSettled: StreamEnd = (event) => {
  if (event.kind === 'status-update') return event.final;
  if (event.kind === 'task') return isSettled(event.task.status.state);
  return false;
};

/** Only at a terminal state: an interrupted task may still go on (v1 SubscribeToTask). */
export const endsAtTerminal: StreamEnd = (event) => {
  if (event.kind === 'status-update') return isTerminal(event.status.state);
  if (event.kind === 'task') return isTerminal(event.task.status.state);
  return false;
};

/**
 * A task's events as a stream: `initial` first (the Task as created, for a send), then every stored event
 * after `afterSeq` and the live ones, in order, until the stream ends. Each subscriber has its own
 * listener, so closing one affects no other.
 */
export function taskStream(
  dispatcher: Dispatcher,
  taskId: string,
  opts: { afterSeq?: number; initial?: Task; convert: (event: StreamEvent) => unknown; endsAt: StreamEnd },
): StreamReply {
  return new StreamReply((emit, end) => {
    let open = true;
    // Replayed events arrive inside `subscribe`, before it returns the subscription to cancel.
    const subscription = { unsubscribe: (): void => undefined };
    const deliver = (event: StreamEvent): void => {
      if (!open) return;
      emit(opts.convert(event), event.seq);
      if (opts.endsAt(event)) {
        open = false;
        subscription.unsubscribe();
        end();
      }
    };
    if (opts.initial) deliver({ kind: 'task', seq: opts.afterSeq ?? 0, task: opts.initial });
    const sub = dispatcher.subscribe(taskId, opts.initial ? (opts.afterSeq ?? 0) : opts.afterSeq, deliver);
    subscription.unsubscribe = sub.unsubscribe;
    if (!open) sub.unsubscribe();
    // A finished task has no live events left: a resume cursor past its last event must not hang.
    else if (isTerminal(dispatcher.get(taskId).status.state)) {
      open = false;
      sub.unsubscribe();
      end();
    }
    return () => {
      open = false;
      sub.unsubscribe();
    };
  });
}

/**
 * SendStreamingMessage / message/stream: the Task first, then its events to the end of this turn. A
 * continuation of a parked task streams only what follows the answer — its earlier events end in the
 * input-required that this message answers, and would close the stream at once.
 */
export async function sendStream(
  dispatcher: Dispatcher,
  request: SendRequest,
  opts: { convert: (event: StreamEvent) => unknown; endsAt: StreamEnd },
): Promise<StreamReply> {
  const afterSeq = request.message.taskId ? dispatcher.lastSeq(request.message.taskId) : 0;
  const task = await dispatcher.send({ ...request, blocking: false });
  return taskStream(dispatcher, task.id, { initial: task, afterSeq, ...opts });
}

/**
 * SubscribeToTask / tasks/resubscribe. A fresh subscription to a terminal task is -32004 (v1 §3.1.6);
 * with a resume cursor it is allowed, so a client that dropped before the end still gets the events it
 * missed, the terminal one last.
 */
export function subscribeStream(
  dispatcher: Dispatcher,
  taskId: string,
  opts: { afterSeq: number | undefined; convert: (event: StreamEvent) => unknown; endsAt: StreamEnd },
): StreamReply {
  const task = dispatcher.get(taskId);
  if (opts.afterSeq === undefined && isTerminal(task.status.state)) {
    throw new BridgeError(
      'unsupported-operation',
      `task ${taskId} is ${task.status.state}; there is nothing left to subscribe to — read it with GetTask / tasks/get`,
    );
  }
  return taskStream(dispatcher, taskId, {
    ...(opts.afterSeq !== undefined ? { afterSeq: opts.afterSeq } : {}),
    convert: opts.convert,
    endsAt: opts.endsAt,
  });
}
