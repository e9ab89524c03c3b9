import type { Artifact, Task, TaskStatus } from './task.js';

/**
 * What a task's stream carries, in order. `seq` is the per-task event number (1-based); a resuming
 * subscriber asks for everything after the last `seq` it saw.
 */
export interface TaskSnapshotEvent {
  kind: 'task';
  seq: number;
  task: Task;
}
export interface StatusUpdateEvent {
  kind: 'status-update';
  seq: number;
  taskId: string;
  contextId: string;
  status: TaskStatus;
  /** true when the task reached a terminal or interrupted state: the end of this interaction. */
  final: boolean;
  metadata?: Record<string, unknown>;
}
export interface ArtifactUpdateEvent {
  kind: 'artifact-update';
  seq: number;
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append: boolean;
  lastChunk: boolean;
}
export type TaskEvent = StatusUpdateEvent | ArtifactUpdateEvent;
export type StreamEvent = TaskSnapshotEvent | TaskEvent;

export function statusUpdate(
  task: Pick<Task, 'id' | 'contextId'>,
  seq: number,
  status: TaskStatus,
  final: boolean,
  metadata?: Record<string, unknown>,
): StatusUpdateEvent {
  const event: StatusUpdateEvent = {
    kind: 'status-update',
    seq,
    taskId: task.id,
    contextId: task.contextId,
    status,
    final,
  };
  if (metadata) event.metadata = metadata;
  return event;
}

export function artifactUpdate(
  task: Pick<Task, 'id' | 'contextId'>,
  seq: number,
  artifact: Artifact,
  flags: { append: boolean; lastChunk: boolean },
): ArtifactUpdateEvent {
  return { kind: 'artifact-update', seq, taskId: task.id, contextId: task.contextId, artifact, ...flags };
}
