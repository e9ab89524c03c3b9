import type { Identity } from '../domain/authority.js';
import type { Task } from '../domain/task.js';

/**
 * What a send says about the chain of delegations it belongs to. All fields are optional hints, and only
 * a send with the install token may use them (SECURITY.md#delegation-chains): an agent's chain comes from
 * the bridge's own records.
 */
export interface DelegationHints {
  depth?: number;
  visited?: string[];
  /** The task on whose behalf this send is made (CONTACTOR_TASK_ID of the calling agent). */
  parentTaskId?: string;
  /** The calling agent's own name (CONTACTOR_AGENT), when the call comes from an agent the bridge started. */
  callerAgent?: string;
}

export interface DelegationChain {
  depth: number;
  visited: string[];
  /** The task the send was made for, when the caller may name it (the activity view's children). */
  parent?: { id: string; agent: string };
}

/** What the bridge itself knows of tasks: the records a chain is built from. */
export interface ChainRecords {
  task(id: string): Task | undefined;
  /** The tasks the bridge is running (or has queued) for this agent now. */
  inFlightOf(agent: string): Task[];
}

/**
 * The one place that decides which chain a new task belongs to (SECURITY.md#delegation-chains); every
 * send (both wire versions, both send forms, fan-out, the CLI inside an agent) reaches it through
 * Dispatcher.answerSend, and the task stores the result as its chain.
 *
 * An agent proven by its token (`by`) gets the chain of the tasks it is running, all of them folded
 * together, because the bridge cannot tell which one a send serves: a hint can neither widen its way out
 * of a loop nor put agents in its chain that never were. A `parentTaskId` it names counts only as the
 * parent link, and only when it is one of those tasks; naming none, the one task it works on is the parent. The person (the install token, or any caller when
 * no token is required) is trusted with hints: a contactor peer passes its chain on that way; they are
 * folded conservatively — the deepest depth, the union of every chain named — and never replace one.
 */
export function resolveChain(hints: DelegationHints, by: Identity | undefined, records: ChainRecords): DelegationChain {
  if (by?.kind === 'agent') return chainOfAgent(by.agent, hints.parentTaskId, records);
  return chainFromHints(hints, records);
}

function chainOfAgent(agent: string, parentTaskId: string | undefined, records: ChainRecords): DelegationChain {
  const running = records.inFlightOf(agent);
  const { depth, visited } = fold(running, 0, []);
  // The caller ends its own chain, whatever order the folded chains put it in.
  const chain = [...visited.filter((a) => a !== agent), agent];
  const named = running.find((t) => t.id === parentTaskId) ?? onlyTurn(running, parentTaskId);
  return { depth, visited: chain, ...(named ? { parent: { id: named.id, agent: named.metadata.agent } } : {}) };
}

/**
 * The parent of a send that names none, when the bridge can tell it: the one task the agent is working on.
 * A long-lived ACP agent's tools (its `contactor mcp`, a `contactor send` from its shell) have no
 * CONTACTOR_TASK_ID to name it (the per-task values go in the prompt's `_meta`), yet a send made while it
 * works on one task alone is made for that task.
 */
function onlyTurn(running: Task[], parentTaskId: string | undefined): Task | undefined {
  if (parentTaskId !== undefined) return undefined;
  const working = running.filter((t) => t.status.state === 'working');
  return running.length === 1 && working.length === 1 ? working[0] : undefined;
}

function chainFromHints(hints: DelegationHints, records: ChainRecords): DelegationChain {
  // A send that names no chain (most sends): nothing to fold, so no arrays, no set.
  if (!hints.parentTaskId && !hints.callerAgent && !hints.visited?.length)
    return { depth: hints.depth ?? 0, visited: [] };
  const named = hints.parentTaskId ? records.task(hints.parentTaskId) : undefined;
  const parents = [
    ...(named ? [named] : []),
    ...(hints.callerAgent ? records.inFlightOf(hints.callerAgent).filter((t) => t.id !== named?.id) : []),
  ];
  const start = [...(hints.visited ?? []), ...(hints.callerAgent ? [hints.callerAgent] : [])];
  const { depth, visited } = fold(parents, hints.depth ?? 0, start);
  return { depth, visited, ...(named ? { parent: { id: named.id, agent: named.metadata.agent } } : {}) };
}

/** The deepest depth one hop below `tasks` and the union of their agents, in first-seen order. */
function fold(tasks: Task[], depth: number, visited: string[]): { depth: number; visited: string[] } {
  const seen = new Set(visited);
  let deepest = depth;
  for (const task of tasks) {
    deepest = Math.max(deepest, task.metadata.delegationDepth + 1);
    for (const a of task.metadata.visitedAgents) seen.add(a);
  }
  return { depth: deepest, visited: [...seen] };
}

/** The reason a send must be rejected as a loop or too deep, or undefined when it may run. */
export function loopGuardVerdict(agent: string, chain: DelegationChain, maxDepth: number): string | undefined {
  if (chain.visited.includes(agent)) {
    return `delegation loop: "${agent}" is already in this chain (${chain.visited.join(' → ')}); hand the work back to your caller instead`;
  }
  if (chain.depth >= maxDepth) {
    return `delegation too deep: depth ${chain.depth} reaches max_delegation_depth ${maxDepth}; do the work yourself or return to your caller`;
  }
  return undefined;
}
