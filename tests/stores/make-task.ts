/** Valid tasks and events for store tests, with status timestamps that rise by 1 ms per task made. */
import {
  artifactUpdate,
  statusUpdate,
  type StatusUpdateEvent,
  type TaskSnapshotEvent,
} from '../../main/domain/events.js';
import type { Artifact, Task, TaskState } from '../../main/domain/task.js';

const BASE = Date.parse('2025-01-01T00:00:00.000Z');
let made = 0;

export interface TaskSpec {
  id?: string;
  contextId?: string;
  agent?: string;
  state?: TaskState;
  /** ISO-8601 status timestamp; by default later than every task made before. */
  timestamp?: string;
  artifacts?: Artifact[];
}

export function makeTask(spec: TaskSpec = {}): Task {
  made += 1;
  const timestamp = spec.timestamp ?? new Date(BASE + made).toISOString();
  const id = spec.id ?? `task-${String(made).padStart(6, '0')}`;
  return {
    kind: 'task',
    id,
    contextId: spec.contextId ?? `ctx-${made}`,
    status: { state: spec.state ?? 'submitted', timestamp },
    history: [{ kind: 'message', messageId: `msg-${id}`, role: 'user', parts: [{ kind: 'text', text: `do ${id}` }] }],
    artifacts: spec.artifacts ?? [],
    metadata: {
      agent: spec.agent ?? 'claude',
      requiresReview: true,
      createdAt: timestamp,
      delegationDepth: 0,
      visitedAgents: [],
    },
  };
}

export function textArtifact(text: string): Artifact {
  return { artifactId: 'reply', name: 'reply', parts: [{ kind: 'text', text }] };
}

/** The first events of a new task, as the runtime creates them: the snapshot, then `submitted`. */
export function firstEvents(task: Task): [TaskSnapshotEvent, StatusUpdateEvent] {
  return [
    { kind: 'task', seq: 1, task: structuredClone(task) },
    statusUpdate(task, 2, { state: 'submitted', timestamp: task.status.timestamp }, false),
  ];
}

/** `task` moved to `state` one second later, with the matching status event. */
export function moved(task: Task, state: TaskState, seq: number): { task: Task; event: StatusUpdateEvent } {
  const timestamp = new Date(Date.parse(task.status.timestamp) + 1000).toISOString();
  const next: Task = { ...structuredClone(task), status: { state, timestamp } };
  return { task: next, event: statusUpdate(next, seq, next.status, state !== 'working') };
}

export function chunk(task: Task, seq: number, text: string) {
  return artifactUpdate(task, seq, textArtifact(text), { append: true, lastChunk: false });
}
