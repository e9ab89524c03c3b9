/**
 * The v0.3 wire is the internal model itself (domain/task.ts); only stream events differ: their `seq`
 * travels as the SSE `id:` line, not in the JSON (docs/contract.md#streaming).
 */
import type { ArtifactUpdateEvent, StatusUpdateEvent, StreamEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';

export type StatusUpdateV03 = Omit<StatusUpdateEvent, 'seq'>;
export type ArtifactUpdateV03 = Omit<ArtifactUpdateEvent, 'seq'>;

/** One SSE event's `result` on the v0.3 wire: the Task, or a status/artifact update with `kind`. */
export function streamEventToV03(event: StreamEvent): Task | StatusUpdateV03 | ArtifactUpdateV03 {
  switch (event.kind) {
    case 'task':
      return event.task;
    case 'status-update':
    case 'artifact-update': {
      const { seq: _seq, ...wire } = event;
      return wire;
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}
