/**
 * One prompt turn as the agent's session sees it: its `session/update` notifications become reporter
 * calls, and its `session/request_permission` requests become `askPermission` (ACP "Prompt Turn" and
 * "Requesting Permission"). Variants the bridge does not show (modes, commands, usage, ...) and any
 * future variant are ignored.
 */
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  ToolCallLocation,
} from '@agentclientprotocol/sdk';
import type { PermissionOption, ToolCallSummary } from '../../domain/pending.js';
import { sameToolCall } from '../../domain/tool-call-identity.js';
import type { PermissionOutcome, Turn, TurnReporter } from '../../ports.js';
import { partOf } from './content.js';
import { whenAborted } from '../process/child-process.js';

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

function locations(list: ToolCallLocation[] | null | undefined): ToolCallSummary['locations'] {
  if (!list) return undefined;
  return list.map((l) => (typeof l.line === 'number' ? { path: l.path, line: l.line } : { path: l.path }));
}

/**
 * The tool call a permission request is about. The request is a tool-call update (ACP "Requesting
 * Permission"): each field it carries replaces what the turn's earlier updates said, whole, as any update's
 * does. Never a merge of the two: OpenCode sends its tool call's full input in an update that comes before
 * or after the request, as it happens, so a merge would make the same call two different ones.
 */
function requestedCall(
  request: RequestPermissionRequest['toolCall'],
  known: ToolCallSummary | undefined,
): ToolCallSummary {
  return {
    title: request.title ?? known?.title ?? request.toolCallId,
    kind: request.kind ?? known?.kind,
    rawInput: request.rawInput ?? known?.rawInput,
    locations: locations(request.locations) ?? known?.locations,
  };
}

export class TurnContext {
  private firstOutput = false;
  /** Non-text blocks so far: names the ones that come without a name (`image-1.png`). */
  private parts = 0;
  /** What the turn's tool calls said so far: a permission request may carry only the toolCallId. */
  private readonly toolCalls = new Map<string, ToolCallSummary>();
  /** Turn.carried until it answered the re-issued call (once). */
  private carried: Turn['carried'];
  /** The session's id when the agent can `session/load` it: a question then survives a bridge restart. */
  private readonly reattach: string | undefined;
  private readonly volatileInputFields: readonly string[];

  constructor(
    readonly turn: Turn,
    readonly report: TurnReporter,
    options: { reattach?: string; volatileInputFields?: readonly string[] } = {},
  ) {
    this.carried = turn.carried;
    this.reattach = options.reattach;
    this.volatileInputFields = options.volatileInputFields ?? [];
  }

  onUpdate(update: SessionUpdate): void {
    if (!this.firstOutput) {
      this.firstOutput = true;
      this.report.receipt({ firstOutputAt: new Date().toISOString() });
    }
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        if (update.content.type === 'text') this.report.text(update.content.text);
        else this.report.content(partOf(update.content, (this.parts += 1)));
        return;
      case 'agent_thought_chunk':
        if (update.content.type === 'text') this.report.progress({ kind: 'thought', text: update.content.text });
        return;
      case 'tool_call':
      case 'tool_call_update': {
        const known = this.toolCalls.get(update.toolCallId);
        const call: ToolCallSummary = {
          title: update.title ?? known?.title ?? update.toolCallId,
          kind: update.kind ?? known?.kind,
          rawInput: update.rawInput ?? known?.rawInput,
          locations: locations(update.locations) ?? known?.locations,
        };
        this.toolCalls.set(update.toolCallId, call);
        const status = update.status ?? (update.sessionUpdate === 'tool_call' ? 'pending' : undefined);
        this.report.progress({
          kind: update.sessionUpdate,
          text: status ? `${call.title} (${status})` : call.title,
          data: {
            toolCallId: update.toolCallId,
            title: call.title,
            kind: call.kind,
            status,
            locations: call.locations,
          },
        });
        return;
      }
      case 'plan':
        this.report.progress({
          kind: 'plan',
          text: update.entries.map((e) => `[${e.status}] ${e.content}`).join('\n'),
          data: { entries: update.entries.map(({ content, priority, status }) => ({ content, priority, status })) },
        });
        return;
      default:
        return;
    }
  }

  /**
   * Hands the request to the runtime, which parks the task and returns when someone answers. After
   * `session/cancel` every pending request must be answered `cancelled` (ACP "Cancellation"), so the
   * wait also ends when the turn is aborted or the agent withdraws the request.
   */
  async askPermission(
    params: RequestPermissionRequest,
    requestSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    if (this.turn.signal.aborted) return CANCELLED;
    const toolCall = requestedCall(params.toolCall, this.toolCalls.get(params.toolCall.toolCallId));
    const options = params.options.map(({ optionId, name, kind }) => ({ optionId, name, kind }));
    const carried = this.carriedAnswer(toolCall, options);
    if (carried) return carried;
    const answer: PermissionOutcome | 'aborted' = await Promise.race([
      this.report.askPermission({
        toolCall,
        options,
        withdrawn: requestSignal,
        ...(this.reattach ? { reattach: this.reattach } : {}),
      }),
      whenAborted(this.turn.signal),
      whenAborted(requestSignal),
    ]);
    if (answer === 'aborted' || answer.outcome === 'cancelled') return CANCELLED;
    // The runtime resolves answers against these options; anything else is a bug, never an approval.
    if (!options.some((o) => o.optionId === answer.optionId)) return CANCELLED;
    return { outcome: { outcome: 'selected', optionId: answer.optionId } };
  }

  /**
   * The verdict given before a restart, for the same call re-issued (the whole call: domain/tool-call-identity.ts):
   * the option of this request with the chosen id and kind, or else of the chosen kind (a new request may
   * number its options anew). Used once: a second issue of the call in this turn is asked.
   */
  private carriedAnswer(toolCall: ToolCallSummary, options: PermissionOption[]): RequestPermissionResponse | undefined {
    const carried = this.carried;
    if (!carried || !sameToolCall(carried.toolCall, toolCall, this.volatileInputFields)) return undefined;
    // The same id only as the same kind: an agent that numbers options by position may give the id of the
    // person's "reject" to an "allow always" in the new set.
    const option =
      options.find((o) => o.optionId === carried.option.optionId && o.kind === carried.option.kind) ??
      options.find((o) => o.kind === carried.option.kind);
    if (!option) return undefined;
    this.carried = undefined;
    const fact = { title: toolCall.title, optionId: option.optionId, kind: option.kind, answeredBy: 'carried over' };
    this.report.receipt({ permissionCarriedOver: fact });
    this.report.progress({
      kind: 'permission',
      text: `${toolCall.title}: answered "${option.name}" as decided before the restart (not asked again)`,
      data: fact,
    });
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
}
