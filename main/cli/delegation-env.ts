/**
 * Delegation context without cooperation (docs/contract.md#agent-environment): inside an agent the bridge
 * started, `send` passes on who is calling and on behalf of which task, so loop guards hold across hops
 * even when the agent never heard of them.
 */
export interface DelegationParams {
  callerAgent?: string;
  parentTaskId?: string;
  delegationDepth?: number;
  visitedAgents?: string[];
}

export function delegationFromEnv(env: NodeJS.ProcessEnv): DelegationParams {
  const params: DelegationParams = {};
  if (env.CONTACTOR_AGENT) params.callerAgent = env.CONTACTOR_AGENT;
  if (env.CONTACTOR_TASK_ID) {
    params.parentTaskId = env.CONTACTOR_TASK_ID;
    const depth = Number(env.CONTACTOR_DEPTH);
    if (Number.isInteger(depth) && depth >= 0) params.delegationDepth = depth + 1;
    const visited = (env.CONTACTOR_VISITED ?? '').split(',').filter((a) => a.trim() !== '');
    if (visited.length) params.visitedAgents = visited;
  }
  return params;
}
