/** A task as a person reads it: the reply on stdout, what went wrong and what to do next on stderr. */
import { textOf, type Part } from '../../domain/task.js';
import type { CliTask } from '../../schema/cli.js';
import { exitForState, type ExitCode } from '../exit-codes.js';
import type { Output } from './output.js';
import { shown, type ScreenText } from './screen-text.js';
import { questionLines } from './render-pending.js';

/**
 * The reply of the task's last turn: each turn adds its own artifact, so after an answered question the
 * earlier ones hold the question, not the result (`get --json` shows them all).
 */
export function resultText(task: CliTask): string {
  const last = task.artifacts.at(-1);
  return last ? textOf(last.parts as Part[]) : '';
}

export function statusText(task: CliTask): string {
  return task.status.message ? textOf(task.status.message.parts as Part[]) : '';
}

export interface OutcomeOptions {
  /** The send named its own --message-id: the retry advice says to pick a new one (else a send is new). */
  ownMessageId?: boolean;
  /** The failed task's partial reply was already streamed above (progress-line.ts), so it is said to be partial. */
  partialShown?: boolean;
}

/** Prints the outcome of a task that reached a stop and returns the exit code it means. */
export function printOutcome(out: Output, task: CliTask, opts: OutcomeOptions = {}): ExitCode {
  const state = task.status.state;
  const id = task.id;
  const reason = statusText(task);
  switch (state) {
    case 'completed':
      out.text(resultText(task));
      if (task.metadata.warning) out.note(out.ce.yellow(`warning: ${task.metadata.warning}`));
      break;
    case 'failed': {
      // What the agent wrote before it failed is kept in the task: shown, and said to be partial.
      const partial = resultText(task);
      out.text(partial);
      const retry = retryAdvice(task, reason, opts.ownMessageId === true);
      const cut =
        partial || opts.partialShown === true ? '\n  the reply above is what the agent wrote before it failed' : '';
      out.note(
        shown`${out.ce.red(`task ${id} failed`)}: ${reason || 'no reason given'}${cut}${retry ? `\n  ${retry}` : ''}`,
      );
      break;
    }
    case 'input-required':
    case 'auth-required':
      for (const line of questionLines(task, out.c)) out.line(line);
      break;
    case 'canceled':
    case 'rejected':
      out.note(shown`${out.ce.yellow(`task ${id} was ${state}`)}${reason ? `: ${reason}` : ''}`);
      break;
    case 'submitted':
    case 'working':
    case 'unknown':
      out.line(`task ${id} is ${state}; follow it with \`contactor watch ${id}\``);
      break;
    default: {
      const never: never = state;
      return never;
    }
  }
  return exitForState(state);
}

/**
 * What to do about a failure, unless the reason already says it. An agent that was never started (a
 * missing program, key or folder: `receipt.delivered` false) failed on the setup, and its reason names the
 * change; the brief is not the problem.
 */
function retryAdvice(task: CliTask, reason: string, ownMessageId: boolean): string | undefined {
  if (task.metadata.retryable === true) {
    if (/re-send (it )?under a new/.test(reason)) return undefined;
    // A send without --message-id makes a new one each time: the idempotency hint is for scripts that set it.
    return ownMessageId
      ? 'it may work if sent again: re-send under a new --message-id (the same one returns this failure)'
      : 'it may work if sent again';
  }
  if (task.metadata.retryable !== false) return `see \`contactor get ${task.id}\``;
  const receipt = task.metadata.receipt as { delivered?: boolean } | undefined;
  return receipt?.delivered === false
    ? 'the agent never started: make the change above, then re-send (`contactor doctor` checks the setup)'
    : 'the same input gives the same failure: change the brief or the agent';
}

/** `[working]`, coloured by what the state means. */
export function stateTag(state: string, c: Output['ce']): ScreenText {
  const tag = `[${state}]`;
  if (state === 'completed') return c.green(tag);
  if (state === 'failed' || state === 'rejected') return c.red(tag);
  if (state === 'input-required' || state === 'auth-required' || state === 'canceled') return c.yellow(tag);
  return c.cyan(tag);
}
