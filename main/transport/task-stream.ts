import type { StreamEvent } from '../domain/events.js';
import { isInterrupted, isTerminal, type Task } from '../domain/task.js';
import type { Dispatcher } from '../runtime/dispatcher.js';
import { StreamReply } from './rpc-types.js';

/** True when no more events belong to this stream: a terminal or interrupted state (A2A §3.1.2). */
export function endsStream(event: StreamEvent): boolean {
  if (event.kind === 'status-update') return event.final;
  if (event.kind === 'task') return isTerminal(event.task.status.state) || isInterrupted(event.task.status.state);
  return false;
}

/**
 * A task's events as a stream: `initial` first (the Task as created, for a send), then every stored event
 * after `afterSeq` and the live ones, in order, until the stream ends. Each subscriber has its own
 * listener, so closing one affects no other.
 */
export function taskStream(
  dispatcher: Dispatcher,
  taskId: string,
  opts: { afterSeq?: number; initial?: Task; convert: (event: StreamEvent) => unknown },
): StreamReply {
  return new StreamReply((emit, end) => {
    let open = true;
    let unsubscribe: (() => void) | undefined;
    const deliver = (event: StreamEvent): void => {
      if (!open) return;
      emit(opts.convert(event), event.seq);
      if (endsStream(event)) {
        open = false;
        unsubscribe?.();
        end();
      }
    };
    if (opts.initial) deliver({ kind: 'task', seq: 0, task: opts.initial });
    const sub = dispatcher.subscribe(taskId, opts.initial ? (opts.afterSeq ?? 0) : opts.afterSeq, deliver);
    unsubscribe = sub.unsubscribe;
    if (!open) sub.unsubscribe();
    return () => {
      open = false;
      sub.unsubscribe();
    };
  });
}
