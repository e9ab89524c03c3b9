/**
 * A question the task is parked on. `permission` is a guarded action the agent wants to take;
 * `decision` is the agent itself unsure which way to go. They mean different things and are answered
 * differently, so they never share a shape.
 */

export interface PermissionOption {
  optionId: string;
  name: string;
  /** allow_once | allow_always | reject_once | reject_always */
  kind: string;
}

export interface ToolCallSummary {
  title: string;
  kind?: string;
  rawInput?: unknown;
  locations?: { path: string; line?: number }[];
}

export interface PermissionPending {
  kind: 'permission';
  requestId: string;
  toolCall: ToolCallSummary;
  options: PermissionOption[];
  workspace?: string;
  /**
   * Set when the agent can pick the conversation up again after the bridge restarts (its backend's
   * opaque handle for it): an answer then continues in a new turn instead of being lost.
   */
  reattach?: string;
  createdAt: string;
  expiresAt: string;
}

export interface DecisionPending {
  kind: 'decision';
  question: string;
  options: string[];
  recommend: string;
  reason: string;
  workspace?: string;
  createdAt: string;
  expiresAt: string;
}

export type Pending = PermissionPending | DecisionPending;

/** The command a tool call would run, whatever shape the agent put it in ('' when it carries none). */
export function commandOf(toolCall: ToolCallSummary): string {
  const raw = toolCall.rawInput;
  if (typeof raw === 'string') return raw;
  if (raw && typeof raw === 'object') {
    const r = raw as Record<string, unknown>;
    const cmd = r.command ?? r.cmd ?? r.commandLine;
    if (typeof cmd === 'string') return [cmd, ...(Array.isArray(r.args) ? r.args.map(String) : [])].join(' ');
    if (Array.isArray(cmd)) return cmd.map(String).join(' ');
  }
  return '';
}

/** How a pending question is rendered as text in `status.message`, for callers that read only text. */
export function describePending(pending: Pending, agent: string): string {
  switch (pending.kind) {
    case 'permission': {
      const opts = pending.options.map((o) => `${o.name} (${o.optionId})`).join(', ');
      return `${agent} asks permission: ${pending.toolCall.title}. Answer with one of: ${opts}.`;
    }
    case 'decision': {
      const opts = pending.options.map((o, i) => `${i + 1}. ${o}`).join('\n');
      return `${pending.question}\n\n${opts}\n\nRecommended: ${pending.recommend} (${pending.reason})`;
    }
    default: {
      const never: never = pending;
      return never;
    }
  }
}

/**
 * The turn that carries a permission answer whose request died with the bridge: the agent picks its
 * conversation up again (it does not re-send the request), and is told what was decided for that call.
 */
export function permissionFollowUp(toolCall: ToolCallSummary, option: PermissionOption): string {
  const allowed = option.kind.startsWith('allow');
  const verdict = allowed
    ? `allowed it ("${option.name}"): go ahead and run it now, then continue the task`
    : `rejected it ("${option.name}"): do not run it; continue the task without it`;
  return (
    `You asked permission for the tool call "${toolCall.title}" and your turn was interrupted while it ` +
    `waited. The requester has ${verdict}.`
  );
}
