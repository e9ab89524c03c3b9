/**
 * A verdict carried over a restart (backends/acp/turn-context.ts) answers the re-issued call with the option
 * the person chose: the same id only when it is still the same kind of answer. An agent that numbers its
 * options by position (Codex: "0", "1", "2") and offers another set after the restart would otherwise turn
 * the person's "reject" (id "1" of allow / reject) into "allow always" (id "1" of allow / allow always /
 * reject).
 */
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { TurnContext } from '../../main/backends/acp/turn-context.js';
import type { PermissionOption, ToolCallSummary } from '../../main/domain/pending.js';
import type { Turn, TurnReporter } from '../../main/ports.js';

const CALL: ToolCallSummary = { title: 'rm -rf build', kind: 'execute', rawInput: { command: 'rm -rf build' } };

function contextCarrying(option: PermissionOption): { context: TurnContext; asked: () => number } {
  let asked = 0;
  const report = {
    text: () => undefined,
    content: () => undefined,
    progress: () => undefined,
    receipt: () => undefined,
    askPermission: () => {
      asked += 1;
      return new Promise(() => undefined);
    },
  } as unknown as TurnReporter;
  const turn = { signal: new AbortController().signal, carried: { toolCall: CALL, option } } as unknown as Turn;
  return { context: new TurnContext(turn, report), asked: () => asked };
}

function reissued(options: PermissionOption[]): RequestPermissionRequest {
  return {
    sessionId: 's',
    toolCall: { toolCallId: 't2', title: CALL.title, kind: 'execute', rawInput: CALL.rawInput },
    options,
  } as RequestPermissionRequest;
}

describe('a carried verdict after the agent numbered its options anew', () => {
  it("answers the person's reject with the reject, never the option that took its id", async () => {
    const { context } = contextCarrying({ optionId: '1', name: 'Reject', kind: 'reject_once' });
    const answer = await context.askPermission(
      reissued([
        { optionId: '0', name: 'Allow', kind: 'allow_once' },
        { optionId: '1', name: 'Allow always', kind: 'allow_always' },
        { optionId: '2', name: 'Reject', kind: 'reject_once' },
      ]),
      new AbortController().signal,
    );
    expect(answer).toEqual({ outcome: { outcome: 'selected', optionId: '2' } });
  });

  it('keeps the same id when it is the same kind of answer', async () => {
    const { context } = contextCarrying({ optionId: 'allow', name: 'Allow', kind: 'allow_once' });
    const answer = await context.askPermission(
      reissued([
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ]),
      new AbortController().signal,
    );
    expect(answer).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
  });
});
