import type { Task } from '../domain/task.js';

/** What a send says about the chain of delegations it belongs to. All fields are optional hints. */
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
  /** The task the send was made for, when the caller named it and it exists (the activity view's children). */
  parent?: { id: string; agent: string };
}

/**
 * Folds every hint into one chain, conservatively: the deepest depth and the union of visited agents.
 * A caller that names only itself (no task id) is matched against its tasks in flight, so the loop
 * guards hold even when the agent never heard of them.
 */
export function resolveChain(
  hints: DelegationHints,
  lookup: { task(id: string): Task | undefined; inFlightOf(agent: string): Task[] },
): DelegationChain {
  let depth = hints.depth ?? 0;
  const visited = new Set(hints.visited ?? []);
  const parents: Task[] = [];
  let named: Task | undefined;
  if (hints.parentTaskId) {
    named = lookup.task(hints.parentTaskId);
    if (named) parents.push(named);
  }
  if (hints.callerAgent) {
    visited.add(hints.callerAgent);
    if (parents.length === 0) parents.push(...lookup.inFlightOf(hints.callerAgent));
  }
  for (const parent of parents) {
    depth = Math.max(depth, parent.metadata.delegationDepth + 1);
    for (const a of parent.metadata.visitedAgents) visited.add(a);
  }
  return { depth, visited: [...visited], ...(named ? { parent: { id: named.id, agent: named.metadata.agent } } : {}) };
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
