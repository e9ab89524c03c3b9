/** Outcomes every backend reports the same way. */
import type { TurnOutcome } from '../../ports.js';

/** What a canceled turn resolves with; the runtime decides the task's state. */
export const STOPPED: TurnOutcome = { kind: 'failed', retryable: true, reason: 'stopped' };

export const SHUTTING_DOWN_REASON = 'the bridge is shutting down';

/** A turn that arrives after `close()`: it never reached the agent, and another bridge may deliver it. */
export const SHUTTING_DOWN: TurnOutcome = { kind: 'undelivered', retryable: true, reason: SHUTTING_DOWN_REASON };
