/**
 * The task model in A2A v0.3 shape (the bridge's internal form; v1.0 wire shapes are converted at the
 * transport edge). One literal list gives the type, the schema enum and the transition table.
 */

export const TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_STATES = ['completed', 'canceled', 'failed', 'rejected'] as const satisfies readonly TaskState[];
/** States where the task is parked waiting for someone outside the agent. */
export const INTERRUPTED_STATES = ['input-required', 'auth-required'] as const satisfies readonly TaskState[];

export function isTerminal(state: TaskState): boolean {
  return (TERMINAL_STATES as readonly TaskState[]).includes(state);
}

export function isInterrupted(state: TaskState): boolean {
  return (INTERRUPTED_STATES as readonly TaskState[]).includes(state);
}

/** Nothing more will happen without the requester: finished, or waiting for an answer. */
export function isSettled(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/**
 * Allowed moves. Terminal states have no way out: a late event (a chunk after cancel, an exit after a
 * timeout) must never re-settle a finished task.
 */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  submitted: ['working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed', 'rejected'],
  working: ['working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed'],
  'input-required': ['working', 'input-required', 'completed', 'canceled', 'failed'],
  'auth-required': ['working', 'canceled', 'failed'],
  completed: [],
  canceled: [],
  failed: [],
  rejected: [],
};

export function canTransition(from: TaskState, to: TaskState): boolean {
  return TRANSITIONS[from].includes(to);
}

export type Role = 'user' | 'agent';

export interface TextPart {
  kind: 'text';
  text: string;
  metadata?: Record<string, unknown>;
}
export interface FilePart {
  kind: 'file';
  file: { bytes?: string; uri?: string; mimeType?: string; name?: string };
  metadata?: Record<string, unknown>;
}
export interface DataPart {
  kind: 'data';
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}
export type Part = TextPart | FilePart | DataPart;

export interface Message {
  kind: 'message';
  messageId: string;
  role: Role;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  metadata?: Record<string, unknown>;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** ISO-8601 UTC with milliseconds and `Z`. */
  timestamp: string;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  history: Message[];
  artifacts: Artifact[];
  metadata: TaskMetadata;
}

/** Bridge facts live flat in `task.metadata` (docs/contract.md#task-metadata). */
export interface TaskMetadata {
  agent: string;
  /** `completed` means "finished executing", never "correct". */
  requiresReview: true;
  createdAt: string;
  delegationDepth: number;
  visitedAgents: string[];
  retryable?: boolean;
  warning?: string;
  pending?: import('./pending.js').Pending;
  receipt?: Record<string, unknown>;
  answeredBy?: string;
  /** Who created the task, as its credential proved: "person" or "agent:<name>" (authority.ts). */
  createdBy?: string;
  /** The working directory the requester named for this task. */
  cwd?: string;
  exitCode?: number;
  [key: string]: unknown;
}

export function textOf(parts: readonly Part[]): string {
  return parts
    .filter((p): p is TextPart => p.kind === 'text')
    .map((p) => p.text)
    .join('');
}

export function agentMessage(messageId: string, text: string, ids: { taskId: string; contextId: string }): Message {
  return { kind: 'message', messageId, role: 'agent', parts: [{ kind: 'text', text }], ...ids };
}
