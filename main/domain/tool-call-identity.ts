/**
 * Whether two tool calls are the same: the one place that decides it (SECURITY.md#what-the-bridge-guarantees).
 * A verdict a person gave for one call answers another only when this says they are the same: a verdict
 * carried over a restart (backends/acp/turn-context.ts) and an "allow always" (runtime/permission-desk.ts).
 *
 * Two calls are the same when their kind, their locations and their **whole** raw input are: every field,
 * compared as canonical JSON (object keys sorted, arrays kept as arrays, so `["sh","-c","ls","; touch X"]`
 * is not `["sh","-c","ls ; touch X"]`). Not only the command: the working directory, the environment and a
 * sandbox switch change what runs as much as the command does. A call without raw input is the same only
 * when everything the person was shown is (title, kind, locations) and that is all it does: never an edit,
 * whose content is in neither, and never a call without a kind.
 *
 * The only fields left out are the ones an agent itself changes between two issues of one call (an id it
 * numbers each call with), named per agent with the evidence (config/known-agents.ts `volatileInputFields`):
 * top-level fields of the raw input only, and never one that changes what runs.
 *
 * Where the call runs is part of it too: most agents' raw input names no folder (Claude Code's
 * `{command, description}`), so `rm -rf build` approved for one task's folder would otherwise answer the
 * same words in another task's folder. A caller that compares calls from different tasks passes each
 * task's workspace (`where`).
 */
import type { ToolCallSummary } from './pending.js';

/** A value as JSON with object keys sorted at every level and arrays in their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/**
 * What identifies the call, as canonical JSON; undefined when nothing can (it then matches no other call).
 * `volatileInputFields`: the agent's own per-issue fields, left out of the raw input.
 */
export function toolCallIdentity(
  call: ToolCallSummary,
  volatileInputFields: readonly string[] = [],
  where?: string,
): string | undefined {
  const locations = call.locations ?? [];
  const place = where === undefined ? {} : { where };
  if (call.rawInput === undefined) {
    if (call.kind === undefined || call.kind === 'edit') return undefined;
    return canonicalJson({ kind: call.kind, locations, title: call.title, ...place });
  }
  return canonicalJson({
    kind: call.kind ?? null,
    locations,
    rawInput: withoutFields(call.rawInput, volatileInputFields),
    ...place,
  });
}

/** Whether `reissued` is the call `approved` was: see the file comment. */
export function sameToolCall(
  approved: ToolCallSummary,
  reissued: ToolCallSummary,
  volatileInputFields: readonly string[] = [],
): boolean {
  const identity = toolCallIdentity(approved, volatileInputFields);
  return identity !== undefined && identity === toolCallIdentity(reissued, volatileInputFields);
}

function withoutFields(rawInput: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || !rawInput || typeof rawInput !== 'object' || Array.isArray(rawInput)) return rawInput;
  return Object.fromEntries(Object.entries(rawInput as Record<string, unknown>).filter(([k]) => !fields.includes(k)));
}
