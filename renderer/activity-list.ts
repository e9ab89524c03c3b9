/**
 * The task list, virtualized: only the rows in view (plus a margin) are in the DOM, so a thousand tasks
 * cost what twenty do. Everything from tasks goes in as text only (page-text.ts): briefs and output are
 * untrusted text.
 */
import type { ActivityRow } from '../main/domain/activity.js';
import { groupOf } from './activity-model.js';
import { setText } from './page-text.js';

export const ROW_HEIGHT = 58;
const MARGIN_ROWS = 6;

export class TaskList {
  private rows: ActivityRow[] = [];
  private selected: string | undefined;
  private readonly shown = new Map<string, HTMLElement>();
  /** Shown rows whose task changed: redrawn in place (the element, its place and its selection stay). */
  private readonly stale = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly box: HTMLElement,
    private readonly spacer: HTMLElement,
    private readonly onSelect: (taskId: string) => void,
  ) {
    box.addEventListener('scroll', () => this.schedule());
    // A row is chosen on the press, as a Windows list view does: Chromium sends no click when the node under the
    // press left the DOM before the release, and a streaming row's content is redrawn many times a second.
    box.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      const row = (event.target as HTMLElement).closest<HTMLElement>('.row');
      if (row?.dataset.taskId) this.onSelect(row.dataset.taskId);
    });
    box.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
      event.preventDefault();
      const at = this.rows.findIndex((r) => r.taskId === this.selected);
      const next = this.rows[Math.max(0, Math.min(this.rows.length - 1, at + (event.key === 'ArrowDown' ? 1 : -1)))];
      if (next) {
        this.onSelect(next.taskId);
        this.reveal(next.taskId);
      }
    });
  }

  /** New rows (already filtered, newest first), or the same ones changed: redraws on the next frame. */
  show(rows: ActivityRow[], changed?: Set<string>): void {
    this.rows = rows;
    if (!changed) this.clear();
    else for (const id of changed) if (this.shown.has(id)) this.stale.add(id);
    this.schedule();
  }

  select(taskId: string | undefined): void {
    this.selected = taskId;
    for (const [id, el] of this.shown) el.classList.toggle('selected', id === taskId);
  }

  /** Elapsed times move on: redraw what is in view. */
  tick(): void {
    const now = Date.now();
    for (const el of this.shown.values()) {
      const since = el.dataset.since;
      const time = el.querySelector('.elapsed');
      if (since && time) setText(time, elapsed(since, now));
    }
  }

  private reveal(taskId: string): void {
    const at = this.rows.findIndex((r) => r.taskId === taskId);
    const top = at * ROW_HEIGHT;
    if (top < this.box.scrollTop) this.box.scrollTop = top;
    else if (top + ROW_HEIGHT > this.box.scrollTop + this.box.clientHeight)
      this.box.scrollTop = top + ROW_HEIGHT - this.box.clientHeight;
  }

  private clear(): void {
    for (const el of this.shown.values()) el.remove();
    this.shown.clear();
    this.stale.clear();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.draw();
    });
  }

  private draw(): void {
    this.spacer.style.height = `${this.rows.length * ROW_HEIGHT}px`;
    const first = Math.max(0, Math.floor(this.box.scrollTop / ROW_HEIGHT) - MARGIN_ROWS);
    const last = Math.min(
      this.rows.length,
      Math.ceil((this.box.scrollTop + this.box.clientHeight) / ROW_HEIGHT) + MARGIN_ROWS,
    );
    const wanted = new Map<string, number>();
    for (let i = first; i < last; i += 1) wanted.set(this.rows[i]!.taskId, i);
    for (const [id, el] of this.shown) {
      if (!wanted.has(id)) {
        el.remove();
        this.shown.delete(id);
      }
    }
    const now = Date.now();
    for (const [id, index] of wanted) {
      let el = this.shown.get(id);
      if (!el) {
        el = renderRow(this.rows[index]!, now);
        this.box.append(el);
        this.shown.set(id, el);
      } else if (this.stale.has(id)) refill(el, renderRow(this.rows[index]!, now));
      el.classList.toggle('selected', id === this.selected);
      el.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
    }
    this.stale.clear();
  }
}

function renderRow(row: ActivityRow, now: number): HTMLElement {
  const el = div('row');
  el.dataset.taskId = row.taskId;
  el.dataset.since = row.since;
  el.dataset.state = groupOf(row.state);
  el.setAttribute('role', 'option');
  const head = div('row-head');
  const chain = row.caller === 'person' ? ['you', ...row.chain] : row.chain;
  head.append(span('chain', chain.join(' → ')));
  if (row.question) head.append(span('badge asks', row.question.kind === 'permission' ? '? permission' : '? decision'));
  if (row.queuePosition !== undefined) head.append(span('badge queue', `#${row.queuePosition} in queue`));
  head.append(span(`state ${groupOf(row.state)}`, row.state), span('elapsed', elapsed(row.since, now)));
  const brief = div('brief');
  setText(brief, row.brief || '(no text)');
  const last = div('last');
  setText(last, row.question?.title ?? row.lastLine ?? '');
  el.append(head, brief, last);
  return el;
}

/**
 * The same element takes the new row's content: a streaming task changes many times a second, and the row a
 * person is pointing at keeps its element (hover, selection) while its text moves on.
 */
function refill(el: HTMLElement, fresh: HTMLElement): void {
  el.className = fresh.className;
  for (const [key, value] of Object.entries(fresh.dataset)) el.dataset[key] = value;
  el.replaceChildren(...fresh.childNodes);
}

/** "12s", "4m 03s", "2h 05m": how long the task has been in its state. */
export function elapsed(since: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${String(m % 60).padStart(2, '0')}m` : `${Math.floor(h / 24)}d`;
}

/** A div of `cls` (the activity page's small DOM builders; activity-detail.ts uses them too). */
export function div(cls: string): HTMLElement {
  const el = document.createElement('div');
  el.className = cls;
  return el;
}

export function span(cls: string, text: string): HTMLElement {
  const el = document.createElement('span');
  el.className = cls;
  setText(el, text);
  return el;
}
