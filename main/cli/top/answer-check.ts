/**
 * The answer rules of `contactor top`, the same as `contactor answer` and the approval window's: nothing
 * is sent on a bare key. An answer is typed and confirmed with Enter; an empty one is refused, and a
 * number must name one of the question's options. The bridge applies the same rules again
 * (runtime/question-answers.ts); checking here only says so before anything is sent.
 */
import { noSuchOption } from '../../domain/option-choice.js';
import type { CliPending } from '../../schema/cli.js';

export type AnswerCheck = { ok: true; answer: string } | { ok: false; error: string };

export function checkAnswer(pending: CliPending | undefined, input: string): AnswerCheck {
  const answer = input.trim();
  if (answer === '') return { ok: false, error: 'type an answer first (Esc: back)' };
  const count = pending?.options.length ?? 0;
  if (/^\d+$/.test(answer) && count > 0) {
    const n = Number(answer);
    if (n < 1 || n > count) return { ok: false, error: noSuchOption(answer, optionNames(pending!)) };
  }
  return { ok: true, answer };
}

/** The options' names, as the bridge's own refusal lists them (domain/option-choice.ts). */
function optionNames(pending: CliPending): string[] {
  return pending.kind === 'decision' ? pending.options : pending.options.map((o) => `${o.name} (${o.optionId})`);
}

/** The question's options, numbered as the answer accepts them. */
export function optionLines(pending: CliPending): string[] {
  if (pending.kind === 'decision') {
    return pending.options.map((o, i) => `${i + 1}. ${o}${o === pending.recommend ? '  (recommended)' : ''}`);
  }
  return pending.options.map((o, i) => `${i + 1}. ${o.name} (${o.optionId})`);
}

/** The question itself in one line. */
export function questionTitle(pending: CliPending): string {
  return pending.kind === 'decision' ? pending.question : `permission: ${pending.toolCall.title}`;
}
