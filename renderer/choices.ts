/**
 * The buttons of one question, as data. Deny comes first and is the default focus; Enter and Space never
 * press anything but Deny (app.ts), and no unmodified key approves: D denies, allow-once is Alt+A, an
 * option is Alt+its number, "Allow always" has no key at all (mouse only). So a stray keystroke can only
 * refuse.
 */
import type { PendingItem } from '../main/schema/ipc.js';

export type Tone = 'deny' | 'allow' | 'option';

export interface Choice {
  label: string;
  /** What `answer` sends: an optionId for permissions, the option verbatim for decisions. */
  answer: string;
  tone: Tone;
  recommended: boolean;
  /** Unmodified keys that press it (lowercase); only ever for a refusal. */
  keys: string[];
  /** Keys that press it together with Alt (lowercase letters, digits). */
  altKeys: string[];
  /** Shown after answering. */
  confirmation: string;
}

const PERMISSION_LABELS: Record<string, { label: string; tone: Tone; done: string }> = {
  reject_once: { label: 'Deny', tone: 'deny', done: 'Denied' },
  allow_once: { label: 'Allow once', tone: 'allow', done: 'Allowed once' },
  allow_always: { label: 'Allow always', tone: 'allow', done: 'Allowed always' },
  reject_always: { label: 'Deny always', tone: 'deny', done: 'Denied always' },
};
const ORDER = ['reject_once', 'reject_always', 'allow_once', 'allow_always'];

export function choicesOf(item: PendingItem): Choice[] {
  const pending = item.pending;
  if (pending.kind === 'decision') {
    return pending.options.map((option, i) => ({
      label: option,
      answer: option,
      tone: 'option' as const,
      recommended: option === pending.recommend,
      keys: [],
      altKeys: i < 9 ? [String(i + 1)] : [],
      confirmation: `Chose ${option}`,
    }));
  }
  const rank = (kind: string): number => (ORDER.includes(kind) ? ORDER.indexOf(kind) : ORDER.length);
  const numbered = pending.options.map((option, i) => ({ option, number: i + 1 }));
  const firstDeny =
    pending.options.find((o) => o.kind === 'reject_once') ?? pending.options.find((o) => o.kind === 'reject_always');
  const firstAllow = pending.options.find((o) => o.kind === 'allow_once');
  return numbered
    .sort((a, b) => rank(a.option.kind) - rank(b.option.kind))
    .map(({ option, number }) => {
      const known = PERMISSION_LABELS[option.kind];
      const tone = known?.tone ?? (option.kind.startsWith('reject') ? 'deny' : 'allow');
      const digit = number <= 9 ? [String(number)] : [];
      // "Allow always" (and any other standing or unknown allow) stays mouse only.
      const altKeys = option === firstAllow ? ['a', ...digit] : tone === 'deny' ? digit : [];
      return {
        label: known?.label ?? option.name,
        answer: option.optionId,
        tone,
        recommended: false,
        keys: option === firstDeny ? ['d'] : [],
        altKeys,
        confirmation: known?.done ?? `Answered ${option.name}`,
      };
    });
}

/** The keys that answer these choices, as a hint line: only keys that exist here (a decision has no D). */
export function keyHint(choices: readonly Choice[]): string {
  const hints: string[] = [];
  const deny = choices.find((c) => c.keys.includes('d'));
  if (deny) hints.push(`D ${deny.label.toLowerCase()}`);
  const allow = choices.find((c) => c.altKeys.includes('a'));
  if (allow) hints.push(`Alt+A ${allow.label.toLowerCase()}`);
  const digits = choices.flatMap((c) => c.altKeys.filter((k) => /^\d$/.test(k))).map(Number);
  if (digits.length) {
    const most = Math.max(...digits);
    hints.push(`Alt+${most === 1 ? '1' : `1–${most}`} option by number`);
  }
  return hints.join(' · ');
}

/** The button that gets focus when a question is selected: Deny, or none for a decision. */
export function defaultChoice(choices: readonly Choice[]): Choice | undefined {
  return choices.find((c) => c.tone === 'deny');
}

/** "now", "3 min ago", "in 27 min": coarse on purpose, it is only there to tell old from new. */
export function relativeTime(iso: string, now: number): string {
  const diff = Date.parse(iso) - now;
  const minutes = Math.round(Math.abs(diff) / 60_000);
  if (minutes < 1) return 'now';
  const span = minutes < 90 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  return diff < 0 ? `${span} ago` : `in ${span}`;
}
