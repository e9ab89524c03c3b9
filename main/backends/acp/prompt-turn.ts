/**
 * One `session/prompt` from send to outcome, including cancellation (ACP "Cancellation"): on abort
 * the bridge sends `session/cancel`, answers pending permissions `cancelled` (TurnContext), and waits
 * `cancel_grace_s` for the prompt to end with the agent's `cancelled` stop reason (real agents take a few
 * seconds on a loaded machine); one that does not stop by then has its process killed, because cancel
 * must stop real work, and that ends every session the process held.
 */
import { methods, RequestError } from '@agentclientprotocol/sdk';
import type { Turn, TurnOutcome, TurnReporter } from '../../ports.js';
import type { AcpConnection } from './connection.js';
import { outcomeOfPromptError, outcomeOfStop } from './outcome.js';
import { contactorMeta, preparePrompt } from './prompt.js';
import type { AcpSession } from './session.js';
import { TurnContext } from './turn-context.js';
import { whenAborted, within } from '../process/child-process.js';
import { STOPPED } from '../shared/outcomes.js';

export interface PromptTurn {
  agent: string;
  conn: AcpConnection;
  session: AcpSession;
  turn: Turn;
  report: TurnReporter;
  /** How long the agent may take to end a canceled turn (`cancel_grace_s`) before its process is killed. */
  cancelGraceMs: number;
  /** Raw-input fields the agent changes between two issues of one call (domain/tool-call-identity.ts). */
  volatileInputFields: readonly string[];
  /** Kills the agent's process after a cancel that did not land; other turns fail retryable. */
  escalate(): Promise<void>;
}

type Settled = { response: { stopReason: string } } | { error: unknown };

export async function runPromptTurn(p: PromptTurn): Promise<TurnOutcome> {
  const { conn, session, turn, report } = p;
  if (turn.signal.aborted) return STOPPED; // canceled while queued behind an earlier turn of this session
  const prompt = await preparePrompt(turn, conn.init?.agentCapabilities?.promptCapabilities, (path) =>
    session.workspace.toAgent(path),
  );
  const reloadable = conn.init?.agentCapabilities?.loadSession === true;
  const context = new TurnContext(turn, report, {
    ...(reloadable ? { reattach: session.sessionId } : {}),
    volatileInputFields: p.volatileInputFields,
  });
  session.turn = context;
  const stderrMark = conn.stderrMark();
  try {
    const request = conn.agent.request(methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: prompt.blocks,
      _meta: contactorMeta(turn),
    });
    report.receipt({ actualForm: 'acp', promptSentAt: new Date().toISOString() });
    const settled: Promise<Settled> = request.then(
      (response) => ({ response }),
      (error: unknown) => ({ error }),
    );
    const first = await Promise.race([settled, whenAborted(turn.signal)]);
    if (first === 'aborted') {
      conn.agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId }).catch(() => undefined);
      const ended = await within(settled, p.cancelGraceMs);
      report.receipt({ cancel: ended === undefined ? 'process killed after grace period' : 'agent stopped the turn' });
      if (ended === undefined) await p.escalate();
      return STOPPED;
    }
    if ('response' in first) {
      report.receipt({ stopReason: first.response.stopReason });
      return outcomeOfStop(first.response.stopReason as Parameters<typeof outcomeOfStop>[0]);
    }
    if (first.error instanceof RequestError && conn.alive) {
      if (first.error.code === -32002) conn.forget(session); // the agent lost the session: next turn starts anew
      return outcomeOfPromptError(p.agent, first.error, conn.init);
    }
    const failure = await conn.failure(stderrMark);
    return { kind: 'failed', retryable: failure.retryable, reason: failure.reason, stderrTail: failure.stderrTail };
  } finally {
    session.turn = undefined;
    await session.terminals.releaseAll();
    await prompt.cleanup();
  }
}
