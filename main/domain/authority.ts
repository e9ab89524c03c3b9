/**
 * Who may do what: one table of privileged actions × identities, consulted for every privileged
 * method and route (SECURITY.md "Who may do what" lists it). An identity is what a credential proves —
 * the install token or the desktop app's in-process channel is the person; an agent's derived token is
 * that agent — never what a request's parameters say.
 */
import { BridgeError } from './errors.js';

export type Identity =
  /** `via`: how the person reached the bridge ("token", "approval window", "notification"). */
  { kind: 'person'; via: string } | { kind: 'agent'; agent: string };

/**
 * `person`: the person only. `person or creator`: the person, or the caller whose credential created
 * the task (an agent that delegated it) — never the agent running it, nor any other agent.
 * `any caller`: anyone with a valid token.
 */
export type Grant = 'person' | 'person or creator' | 'any caller';

export const AUTHORITY = {
  /** `tasks/answer`, and a message carrying the task's taskId (A2A continuation, v1 and v0.3). */
  'answer a question': 'person or creator',
  /** `tasks/cancel`, `CancelTask`. */
  'cancel a task': 'person or creator',
  /** `POST /shutdown`. */
  'stop the bridge': 'person',
  /** `config/reload`. */
  'reload the config': 'person',
  /** `config/status`: agents' commands, env names, roots. */
  'read the config': 'person',
  /** `pending/list`: an agent sees the questions (and their history) of the tasks it created only. */
  'list open questions': 'person or creator',
  /** `GET /events`, `activity/snapshot`, `activity/task`: every task, bridge-wide. */
  'follow every task': 'person',
  /** `message/send`, `message/stream`, `SendMessage`, `SendStreamingMessage`, `agents/orchestrate` (loop guards apply). */
  'send a task': 'any caller',
  /** `tasks/get`, `tasks/list`, `tasks/resubscribe` and their v1 names. */
  'read tasks': 'any caller',
  /** `agents/list`, `agents/card`. */
  'discover agents': 'any caller',
  /** `POST /mcp`, `GET /mcp`: each tool then calls the methods above as an agent (docs/contract.md#mcp-tools). */
  'call MCP tools': 'any caller',
} as const satisfies Record<string, Grant>;

export type Action = keyof typeof AUTHORITY;

/** The person as the install token proves it (CLI, curl, any client the person configured). */
export const PERSON_BY_TOKEN: Identity = { kind: 'person', via: 'token' };

/** How an identity is written in a task, the audit log and the question history. */
export function identityLabel(who: Identity): string {
  return who.kind === 'person' ? `person (${who.via})` : `agent ${who.agent}`;
}

/** The stored form of a task's creator (`metadata.createdBy`): "person" or "agent:<name>". */
export function creatorOf(who: Identity): string {
  return who.kind === 'person' ? 'person' : `agent:${who.agent}`;
}

/** The agent a stored creator names (`agent:<name>`), or undefined when the person or nobody created the task. */
export function creatorAgent(createdBy: unknown): string | undefined {
  return typeof createdBy === 'string' && createdBy.startsWith('agent:') ? createdBy.slice('agent:'.length) : undefined;
}

/** A task as the table needs it: its stored creator and the agent running it. */
export interface TaskParty {
  id?: string;
  createdBy?: unknown;
  agent?: string;
}

/** Whether `who` may do `action`; for task actions, on `task`. */
export function allows(action: Action, who: Identity, task?: TaskParty): boolean {
  if (who.kind === 'person') return true;
  const grant: Grant = AUTHORITY[action];
  if (grant === 'any caller') return true;
  if (grant === 'person') return false;
  // The agent running a task never decides for it, even one that somehow created it itself; a task from
  // before creators were recorded has none: only the person may act on it.
  return task?.agent !== who.agent && task?.createdBy === creatorOf(who);
}

/**
 * The table's word before a method or route runs, where no task is in hand yet: `person` and `any caller`
 * actions are decided here; a `person or creator` action is decided by the method, with its task.
 */
export function authorizeCall(action: Action, who: Identity): void {
  if (AUTHORITY[action] !== 'person or creator') authorize(action, who);
}

/** Throws the refusal (-32066 on the wire) when `who` may not do `action`. */
export function authorize(action: Action, who: Identity, task?: TaskParty): void {
  const refused = refusal(action, who, task);
  if (refused) throw refused;
}

/** Why `who` may not do `action`, saying who may; undefined when it may. */
export function refusal(action: Action, who: Identity, task?: TaskParty): BridgeError | undefined {
  if (allows(action, who, task)) return undefined;
  const grant = AUTHORITY[action];
  const onTask = task?.id ? ` on task ${task.id}` : '';
  const whoMay =
    grant === 'person'
      ? 'only the person may (the install token: `contactor` on their machine, or the desktop app)'
      : 'only the person (install token or desktop app) or the caller that created the task may; the agent running a task never may';
  return new BridgeError('unauthorized', `${identityLabel(who)} may not ${action}${onTask}: ${whoMay}`, {
    action,
    identity: identityLabel(who),
  });
}
