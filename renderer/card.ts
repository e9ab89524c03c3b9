/**
 * One question as a DOM card. Everything from the agent goes in as text only (page-text.ts): commands and
 * questions are untrusted text, their hidden characters shown as marks, a command on one line.
 */
import type { PendingItem } from '../main/schema/ipc.js';
import { choicesOf, relativeTime, type Choice } from './choices.js';
import type { TextLayout } from '../main/domain/visible-text.js';
import { attributeText, setText } from './page-text.js';

export interface Card {
  item: PendingItem;
  element: HTMLElement;
  choices: { choice: Choice; button: HTMLButtonElement }[];
}

export function itemKey(item: PendingItem): string {
  const p = item.pending;
  return `${item.taskId}/${p.kind === 'permission' ? p.requestId : p.createdAt}`;
}

export function renderCard(item: PendingItem, onChoose: (card: Card, choice: Choice) => void): Card {
  const p = item.pending;
  const element = el('article', 'card');
  element.tabIndex = -1;
  element.dataset.kind = p.kind;
  element.dataset.taskId = item.taskId;
  element.setAttribute(
    'aria-label',
    attributeText(`${item.agent}: ${p.kind === 'permission' ? 'permission request' : 'decision'}`),
  );

  const head = el('header', 'card-head');
  const badge = p.kind === 'permission' ? ['permission', p.toolCall.kind].filter(Boolean).join(' · ') : 'decision';
  head.append(el('span', 'agent', item.agent), el('span', `badge ${p.kind}`, badge));
  const when = el('span', 'when', '');
  when.dataset.created = p.createdAt;
  when.dataset.expires = p.expiresAt;
  head.append(when);
  element.append(head);

  if (p.workspace) element.append(labelled('Workspace', el('code', 'workspace', p.workspace)));
  if (p.kind === 'permission') {
    const command = item.command ?? p.toolCall.title;
    if (command !== p.toolCall.title) element.append(el('p', 'title', p.toolCall.title, 'one-line'));
    element.append(el('pre', 'command', command, 'one-line'));
    const paths = (p.toolCall.locations ?? []).map((l) => (l.line ? `${l.path}:${l.line}` : l.path));
    if (paths.length) element.append(labelled('Files', el('code', 'paths', paths.join('\n'))));
  } else {
    element.append(el('p', 'question', p.question));
    if (p.reason) element.append(el('p', 'reason', `Recommended: ${p.recommend} — ${p.reason}`));
  }
  if (item.request) element.append(labelled('Task', el('span', 'request', item.request)));

  const card: Card = { item, element, choices: [] };
  const buttons = el('div', 'choices');
  for (const choice of choicesOf(item)) {
    const button = el(
      'button',
      `choice ${choice.tone}${choice.recommended ? ' recommended' : ''}`,
    ) as HTMLButtonElement;
    button.type = 'button';
    button.dataset.tone = choice.tone;
    const plain = choice.keys[0];
    const alt = choice.altKeys[0];
    const key = plain ? plain.toUpperCase() : alt ? `Alt+${alt.toUpperCase()}` : undefined;
    button.append(el('span', 'label', choice.recommended ? `★ ${choice.label}` : choice.label));
    if (key) button.append(el('kbd', '', key));
    if (choice.recommended) button.title = 'Recommended by the agent';
    button.addEventListener('click', () => onChoose(card, choice));
    buttons.append(button);
    card.choices.push({ choice, button });
  }
  element.append(buttons, el('p', 'status', ''));
  updateTimes(element, Date.now());
  return card;
}

/** Refreshes the "asked … ago · expires in …" line. */
export function updateTimes(root: ParentNode, now: number): void {
  for (const when of root.querySelectorAll<HTMLElement>('.when')) {
    const { created, expires } = when.dataset;
    if (created && expires)
      setText(when, `asked ${relativeTime(created, now)} · expires ${relativeTime(expires, now)}`);
  }
}

function labelled(label: string, value: HTMLElement): HTMLElement {
  const row = el('div', 'row');
  row.append(el('span', 'row-label', label), value);
  return row;
}

function el(tag: string, className: string, text?: string, layout?: TextLayout): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) setText(node, text, layout);
  return node;
}
