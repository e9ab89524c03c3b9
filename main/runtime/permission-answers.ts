import { BridgeError } from '../domain/errors.js';
import { noSuchOption } from '../domain/option-choice.js';
import type { PermissionOption } from '../domain/pending.js';

const ALLOW_WORDS = ['yes', 'y', 'allow', 'ok', 'approve'];
const REJECT_WORDS = ['no', 'n', 'reject', 'deny'];

/**
 * Maps a person's answer to one of the agent's options: the optionId, the option's name (any case), its
 * 1-based number (`3` or `3.`), or
 * the aliases yes/allow/y → the allow_once option and no/reject/n → the reject_once option.
 */
export function resolvePermissionAnswer(options: readonly PermissionOption[], answer: string): PermissionOption {
  const a = answer.trim();
  const lower = a.toLowerCase();
  const byId = options.find((o) => o.optionId === a);
  if (byId) return byId;
  const byName = options.find((o) => o.name.toLowerCase() === lower);
  if (byName) return byName;
  // `3.` as the options are listed; a number out of range (`-1`, `9`) matches nothing and is refused below.
  if (/^-?\d+\.?$/.test(a)) {
    const byNumber = options[Number(a.replace(/\.$/, '')) - 1];
    if (byNumber) return byNumber;
  }
  if (ALLOW_WORDS.includes(lower)) {
    const allow = allowOption(options);
    if (allow) return allow;
  }
  if (REJECT_WORDS.includes(lower)) {
    const reject = rejectOption(options);
    if (reject) return reject;
  }
  const names = options.map((o) => `${o.name} (${o.optionId})`);
  throw new BridgeError('invalid-params', noSuchOption(a, names, 'or yes / no'), {
    validAnswers: [...options.map((o) => o.optionId), 'yes', 'no'],
  });
}

/** The option a refusal picks: never an allow, so expiry and deny rules can only reject. */
export function rejectOption(options: readonly PermissionOption[]): PermissionOption | undefined {
  return options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
}

export function allowOption(options: readonly PermissionOption[]): PermissionOption | undefined {
  return options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
}
