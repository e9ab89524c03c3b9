/**
 * The approval window: lists every open question oldest first and answers them through `window.contactor`
 * (the preload). Keyboard: D deny, Alt+A allow once, Alt+1–9 option n, ↑/↓ (or K/J) move, Esc close. No
 * unmodified key approves; Enter and Space only ever press Deny; "Allow always" takes a click.
 */
import type { ContactorApi, PendingItem } from '../main/schema/ipc.js';
import { itemKey, renderCard, updateTimes, type Card } from './card.js';
import { defaultChoice, type Choice } from './choices.js';
import { setText } from './page-text.js';

declare global {
  interface Window {
    contactor: ContactorApi;
  }
}

const CONFIRM_MS = 1200;
const ERROR_MS = 3500;

const api = window.contactor;
const list = document.getElementById('list')!;
const empty = document.getElementById('empty')!;
const count = document.getElementById('count')!;
const cards = new Map<string, Card>();
/** Cards showing a confirmation or an error: kept until their timer removes them. */
const leaving = new Set<string>();
let selected: string | undefined;

async function refresh(): Promise<void> {
  let items: PendingItem[];
  try {
    items = await api.listPending();
  } catch (err) {
    showProblem(`Could not read the questions: ${(err as Error).message}`);
    return;
  }
  const keys = new Set(items.map(itemKey));
  for (const [key, card] of cards) {
    if (!keys.has(key) && !leaving.has(key)) {
      card.element.remove();
      cards.delete(key);
    }
  }
  let previous: Element | null = null;
  for (const item of items) {
    const key = itemKey(item);
    let card = cards.get(key);
    if (!card) {
      card = renderCard(item, choose);
      card.element.addEventListener('focusin', () => select(key, false));
      cards.set(key, card);
    }
    const next: Element | null = previous ? previous.nextElementSibling : list.firstElementChild;
    if (next !== card.element) list.insertBefore(card.element, next);
    previous = card.element;
  }
  const open = [...cards.keys()].filter((k) => !leaving.has(k)).length;
  setText(count, String(open));
  document.title = `Contactor approvals (${open})`;
  empty.hidden = cards.size > 0;
  list.hidden = cards.size === 0;
  if (!selected || !cards.has(selected) || leaving.has(selected)) select(firstOpen(), true);
}

function choose(card: Card, choice: Choice): void {
  const key = itemKey(card.item);
  if (leaving.has(key)) return;
  leaving.add(key);
  for (const c of card.choices) c.button.disabled = true;
  const status = card.element.querySelector('.status')!;
  void api.answer(card.item.taskId, choice.answer).then(
    (result) => {
      if (result.ok) finish(card, key, 'answered', `✓ ${choice.confirmation}`, CONFIRM_MS);
      else finish(card, key, 'refused', result.message, ERROR_MS);
    },
    (err: unknown) => finish(card, key, 'refused', (err as Error).message, ERROR_MS),
  );
  setText(status, 'Sending…');
}

function finish(card: Card, key: string, outcome: 'answered' | 'refused', text: string, ms: number): void {
  card.element.classList.add(outcome);
  const status = card.element.querySelector('.status')!;
  setText(status, text);
  status.setAttribute('role', outcome === 'refused' ? 'alert' : 'status');
  if (selected === key) select(firstOpen(), true);
  setTimeout(() => {
    leaving.delete(key);
    card.element.remove();
    cards.delete(key);
    void refresh();
  }, ms);
}

function firstOpen(): string | undefined {
  return [...cards.keys()].find((k) => !leaving.has(k));
}

function select(key: string | undefined, focus: boolean): void {
  if (selected && cards.get(selected)) cards.get(selected)!.element.classList.remove('selected');
  selected = key;
  const card = key ? cards.get(key) : undefined;
  if (!card) return;
  card.element.classList.add('selected');
  if (focus) {
    const deny = defaultChoice(card.choices.map((c) => c.choice));
    const target = card.choices.find((c) => c.choice === deny)?.button ?? card.element;
    target.focus({ preventScroll: true });
    card.element.scrollIntoView({ block: 'nearest' });
  }
}

function move(step: number): void {
  const open = [...list.children]
    .map((e) => [...cards.entries()].find(([, c]) => c.element === e)?.[0])
    .filter((k): k is string => !!k && !leaving.has(k));
  if (!open.length) return;
  const at = selected ? open.indexOf(selected) : -1;
  select(open[Math.max(0, Math.min(open.length - 1, at + step))], true);
}

/** Enter/Space on anything but a Deny button must not press it. */
function isGuardedActivation(event: KeyboardEvent): boolean {
  if (event.key !== 'Enter' && event.key !== ' ') return false;
  const target = event.target as HTMLElement | null;
  return !(target instanceof HTMLButtonElement && (target.dataset.tone === 'deny' || target.id === 'close'));
}

document.addEventListener('keydown', (event) => {
  if (isGuardedActivation(event)) {
    event.preventDefault();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.repeat) return;
  const card = selected && !leaving.has(selected) ? cards.get(selected) : undefined;
  if (event.altKey) {
    // By physical key: Alt (AltGr, Option) changes `event.key` on many layouts.
    const code = /^(?:Key([A-Z])|Digit(\d)|Numpad(\d))$/.exec(event.code);
    const key = code ? (code[1] ?? code[2] ?? code[3])!.toLowerCase() : '';
    const hit = key ? card?.choices.find((c) => c.choice.altKeys.includes(key)) : undefined;
    if (card && hit) {
      event.preventDefault();
      choose(card, hit.choice);
    }
    return;
  }
  const key = event.key.toLowerCase();
  if (key === 'escape') return window.close();
  if (key === 'arrowdown' || key === 'j') return (event.preventDefault(), move(1));
  if (key === 'arrowup' || key === 'k') return (event.preventDefault(), move(-1));
  const hit = card?.choices.find((c) => c.choice.keys.includes(key));
  if (card && hit) {
    event.preventDefault();
    choose(card, hit.choice);
  }
});
// A Space press activates a button on keyup: guard that half as well.
document.addEventListener('keyup', (event) => {
  if (event.key === ' ' && isGuardedActivation(event)) event.preventDefault();
});

document.getElementById('close')!.addEventListener('click', () => window.close());
document.getElementById('activity')!.addEventListener('click', () => void api.openActivity());

function showProblem(text: string): void {
  empty.hidden = false;
  setText(empty.querySelector('.empty-title')!, text);
}

api.onChange(() => void refresh());
setInterval(() => updateTimes(list, Date.now()), 30_000);
void refresh();
