/**
 * The decision contract: ACP's permission request covers allow/reject only, so to let an agent ask
 * "A or B?" the bridge appends this text to every outbound prompt and parses the reply strictly.
 *
 * The parser's strictness is derived from the contract's own words, not tuned by trial: the block must
 * END the reply ("nothing after it"), RECOMMEND must copy an option verbatim, placeholders are not
 * options, and a choice needs at least two options. An agent that quotes or echoes the contract
 * therefore never triggers it: the quoted block is followed by the Rules lines.
 */
import { noSuchOption } from './option-choice.js';
import { BridgeError } from './errors.js';

export const DECISION_MARKER = '[[NEEDS_DECISION]]';

export const DECISION_CONTRACT = `

---
If you cannot continue without the requester choosing between options, END your reply with exactly this block, and nothing after it:
${DECISION_MARKER}
- <option 1>
- <option 2>
RECOMMEND: <copy one option above verbatim>
REASON: <one short line>
Rules: use it only when a choice is truly needed; give at least two options; otherwise just finish and never mention this block.`;

export interface ParsedDecision {
  question: string;
  options: string[];
  recommend: string;
  reason: string;
}

const PLACEHOLDER = /^<[^<>]*>$/;

export function withDecisionContract(request: string): string {
  return request + DECISION_CONTRACT;
}

/** The text without the contract when it ends with it; any other text unchanged. */
export function withoutDecisionContract(text: string): string {
  return text.endsWith(DECISION_CONTRACT) ? text.slice(0, -DECISION_CONTRACT.length) : text;
}

/** Returns the decision the reply ends with, or undefined when it is an ordinary reply. */
export function parseDecision(reply: string): ParsedDecision | undefined {
  const lines = reply.replace(/\r\n?/g, '\n').trimEnd().split('\n');
  const start = lastIndexOfMarker(lines);
  if (start < 0) return undefined;

  const block = lines.slice(start + 1).map((l) => l.trim());
  const options: string[] = [];
  let i = 0;
  while (i < block.length && block[i]!.startsWith('- ')) {
    options.push(block[i]!.slice(2).trim());
    i += 1;
  }
  const recommendLine = block[i];
  const reasonLine = block[i + 1];
  // "nothing after it": exactly RECOMMEND then REASON must close the reply.
  if (block.length !== i + 2 || !recommendLine || !reasonLine) return undefined;
  if (!recommendLine.startsWith('RECOMMEND:') || !reasonLine.startsWith('REASON:')) return undefined;

  const recommend = recommendLine.slice('RECOMMEND:'.length).trim();
  const reason = reasonLine.slice('REASON:'.length).trim();
  if (options.length < 2 || options.some((o) => o === '' || PLACEHOLDER.test(o))) return undefined;
  if (new Set(options).size !== options.length) return undefined;
  if (PLACEHOLDER.test(recommend) || !options.includes(recommend)) return undefined;
  if (reason === '' || PLACEHOLDER.test(reason)) return undefined;

  const question = lines.slice(0, start).join('\n').trim();
  return { question, options, recommend, reason };
}

function lastIndexOfMarker(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if (lines[i]!.trim() === DECISION_MARKER) return i;
  }
  return -1;
}

/** `2`, `2.` (the way the options are listed), `-1`: an option number, right or wrong. */
const NUMBER_LIKE = /^-?\d+\.?$/;

/**
 * Maps an answer to one of the options: the option's exact text, then its 1-based number, else free text,
 * which is passed on as given. Anything shaped like a number — `2`, `2.` (as the options are printed),
 * `-1` — is read as one, and refused outside 1..N (a mistyped choice must not reach the agent as the text
 * "5", "1." or "-1") unless the caller says it is free text.
 */
export function resolveDecisionAnswer(
  options: readonly string[],
  answer: string,
  opts: { freeText?: boolean } = {},
): { choice: string; free: boolean } {
  const trimmed = answer.trim();
  const exact = options.find((o) => o === trimmed) ?? options.find((o) => o.toLowerCase() === trimmed.toLowerCase());
  if (exact !== undefined) return { choice: exact, free: false };
  if (!opts.freeText && options.length > 0 && NUMBER_LIKE.test(trimmed)) {
    const picked = options[Number(trimmed.replace(/\.$/, '')) - 1];
    if (picked !== undefined) return { choice: picked, free: false };
    throw new BridgeError(
      'invalid-params',
      noSuchOption(trimmed, options, 'or send it as free text (`contactor answer --text`, freeText: true)'),
      { options: [...options] },
    );
  }
  return { choice: trimmed, free: true };
}

/** The next-turn text that carries the requester's choice back to the agent. */
export function decisionFollowUp(decision: { question: string; choice: string }, original?: string): string {
  const answer = `You asked: ${decision.question || 'which option to take'}\nThe requester chose: ${decision.choice}\nContinue with that choice.`;
  return original === undefined ? answer : `${original}\n\n---\n${answer}`;
}
