/**
 * A task's open question as an ACP `session/request_permission` (docs/contract.md#acp): a permission keeps the
 * agent's own tool call and options; a decision becomes a request whose options are the decision's, its
 * question the title. The option the editor selects is the answer given to `tasks/answer`.
 */
import type { PermissionOption, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { CliPending } from '../../schema/cli.js';

const OPTION_KINDS: readonly PermissionOption['kind'][] = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
];

export function permissionRequestOf(sessionId: string, taskId: string, pending: CliPending): RequestPermissionRequest {
  if (pending.kind === 'permission') {
    const { title, kind, rawInput, locations } = pending.toolCall;
    return {
      sessionId,
      toolCall: {
        toolCallId: pending.requestId,
        title,
        ...(isToolKind(kind) ? { kind } : {}),
        ...(rawInput !== undefined ? { rawInput } : {}),
        ...(locations?.length
          ? { locations: locations.map((l) => ({ path: l.path, ...(l.line !== undefined ? { line: l.line } : {}) })) }
          : {}),
      },
      options: pending.options.map((o) => ({
        optionId: o.optionId,
        name: o.name,
        kind: (OPTION_KINDS as readonly string[]).includes(o.kind)
          ? (o.kind as PermissionOption['kind'])
          : 'allow_once',
      })),
    };
  }
  return {
    sessionId,
    toolCall: {
      toolCallId: `decision-${taskId}`,
      title: pending.question,
      kind: 'think',
      rawInput: { recommend: pending.recommend, reason: pending.reason },
    },
    // A choice among the agent's options, none of them a refusal: each is "go ahead with this one".
    options: pending.options.map((option) => ({
      optionId: option,
      name: option === pending.recommend ? `${option} (recommended)` : option,
      kind: 'allow_once',
    })),
  };
}

function isToolKind(kind: string | undefined): kind is NonNullable<RequestPermissionRequest['toolCall']['kind']> {
  return (
    kind !== undefined &&
    ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'].includes(kind)
  );
}
