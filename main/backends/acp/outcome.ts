/**
 * How what the agent did becomes a TurnOutcome. The classification follows "can a retry help?":
 * a dead process or a provider error (-32603) is retryable, a refusal or a protocol error is not.
 */
import { RequestError, type AuthMethod, type InitializeResponse, type StopReason } from '@agentclientprotocol/sdk';
import type { TurnOutcome } from '../../ports.js';

/** ACP -32000: the agent needs the user to authenticate first. */
const AUTH_REQUIRED = -32000;

export function isAuthRequired(err: unknown): boolean {
  return err instanceof RequestError && err.code === AUTH_REQUIRED;
}

/** The agent's own words on how to sign in, from the auth methods it declared at `initialize`. */
export function authHint(agent: string, init: InitializeResponse | undefined, err?: unknown): string {
  const methods = (init?.authMethods ?? []) as AuthMethod[];
  const described = methods.map((m) => {
    const desc = 'description' in m && typeof m.description === 'string' ? `: ${m.description}` : '';
    return `${m.name}${desc}`;
  });
  const said = err instanceof RequestError ? ` (agent said: ${err.message})` : '';
  const how = described.length ? ` Its sign-in methods: ${described.join('; ')}.` : '';
  return `agent ${agent} needs you to sign in before it can work${said}.${how} Sign in with the agent's own CLI, then re-send the task.`;
}

export function outcomeOfStop(stopReason: StopReason): TurnOutcome {
  switch (stopReason) {
    case 'end_turn':
    case 'max_tokens':
    case 'max_turn_requests':
      return { kind: 'completed' };
    case 'refusal':
      return { kind: 'failed', retryable: false, reason: 'the agent refused the request (stopReason: refusal)' };
    case 'cancelled':
      return {
        kind: 'failed',
        retryable: true,
        reason: 'the agent cancelled the turn on its own (stopReason: cancelled)',
      };
    default:
      // Responses are not validated by the SDK, so a newer agent may send a reason this list lacks; the
      // turn did end, and the receipt records the reason as sent.
      return { kind: 'completed' };
  }
}

/**
 * The agent's message for a JSON-RPC error it answered with, plus its `data.details`: "Internal error"
 * alone says nothing, the details say why ("No previous sessions found for this project.").
 */
export function agentErrorMessage(err: RequestError): string {
  const data = err.data as { details?: unknown; message?: unknown } | undefined;
  const detail =
    typeof data?.details === 'string' ? data.details : typeof data?.message === 'string' ? data.message : undefined;
  return detail && !err.message.includes(detail) ? `${err.message}: ${detail}` : err.message;
}

export function outcomeOfPromptError(
  agent: string,
  err: RequestError,
  init: InitializeResponse | undefined,
): TurnOutcome {
  if (err.code === AUTH_REQUIRED) return { kind: 'auth-required', reason: authHint(agent, init, err) };
  const retryable = err.code === -32603 || err.code === -32002;
  return {
    kind: 'failed',
    retryable,
    reason: `agent ${agent} failed the prompt (${err.code}): ${agentErrorMessage(err)}`,
  };
}
