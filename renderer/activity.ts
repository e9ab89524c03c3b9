/**
 * The activity window: every task on this machine, live, through `window.contactorActivity` (the preload).
 * It takes a snapshot, then pulls the feed's events after its cursor whenever main says there are some,
 * one pull at a time, so every event is applied exactly once (docs/contract.md#the-event-feed). Answering
 * follows the approval window's rules: no unmodified key approves; Enter and Space only ever press Deny.
 */
import type { ActivityRow } from '../main/domain/activity.js';
import type { ActivityApi, ActivityUpdate } from '../main/schema/ipc.js';
import { TaskDetail } from './activity-detail.js';
import { TaskList } from './activity-list.js';
import { ActivityModel, groupOf, seqOf } from './activity-model.js';
import { attributeText, setText } from './page-text.js';

declare global {
  interface Window {
    contactorActivity: ActivityApi;
  }
}

const api = window.contactorActivity;
const $ = (id: string): HTMLElement => document.getElementById(id)!;
const model = new ActivityModel();
const filterAgent = $('filter-agent') as HTMLSelectElement;
const filterState = $('filter-state') as HTMLSelectElement;
const search = $('search') as HTMLInputElement;
const notice = document.createElement('div');
notice.className = 'notice';
notice.setAttribute('role', 'status');
document.body.append(notice);

const list = new TaskList($('list'), $('list-spacer'), (taskId) => void open(taskId));
const detail = new TaskDetail($('detail'), api, say, (taskId) => void open(taskId));

function say(text: string, bad = false): void {
  setText(notice, text);
  notice.classList.toggle('bad', bad);
  notice.classList.add('shown');
  setTimeout(() => notice.classList.remove('shown'), 3000);
}

function visible(): ActivityRow[] {
  const agent = filterAgent.value;
  const state = filterState.value;
  const words = search.value.trim().toLowerCase();
  return model
    .newestFirst()
    .filter(
      (r) =>
        (!agent || r.agent === agent) &&
        (!state || groupOf(r.state) === state) &&
        (!words || r.brief.toLowerCase().includes(words)),
    );
}

function redraw(changed?: Set<string>): void {
  const rows = visible();
  list.show(rows, changed);
  $('empty').hidden = model.rows.size > 0;
  const sum = model.summary();
  setText($('sum-running'), String(sum.running));
  setText($('sum-waiting'), String(sum.waiting));
  setText($('sum-needs'), String(sum.needs));
  setText($('sum-finished'), String(sum.finished));
  document.title = sum.needs ? `Contactor activity (${sum.needs} need you)` : 'Contactor activity';
  const known = new Set([...filterAgent.options].map((o) => o.value));
  for (const agent of model.agents) {
    if (!known.has(agent)) filterAgent.append(new Option(attributeText(agent), agent));
  }
}

/** One pull at a time: a nudge during a pull runs another after it. */
let pulling: Promise<void> | undefined;
let again = false;

function pull(): Promise<void> {
  if (pulling) {
    again = true;
    return pulling;
  }
  pulling = (async () => {
    try {
      do {
        again = false;
        let update: ActivityUpdate;
        do {
          if (!model.cursor) return;
          update = await api.since(model.cursor);
          apply(update);
        } while (update.kind === 'events' && update.more);
      } while (again);
    } catch (err) {
      say(`Could not read the activity: ${(err as Error).message}`, true);
    } finally {
      pulling = undefined;
    }
  })();
  return pulling;
}

function apply(update: ActivityUpdate): void {
  if (update.kind === 'reset') {
    model.reset(update.snapshot);
    redraw();
    if (detail.taskId) void open(detail.taskId);
    return;
  }
  if (update.entries.length === 0 && update.rows.length === 0) return;
  const changed = model.apply(update.entries, update.rows, update.cursor);
  for (const entry of update.entries) {
    if (entry.event.taskId === detail.taskId && seqOf(entry.cursor) > detail.loadedSeq) detail.follow(entry);
  }
  redraw(changed);
  if (detail.taskId && changed.has(detail.taskId)) refreshDetailHead();
}

/** A state change of the shown task (a question came or went): load it again, after pending pulls. */
let reloading = false;
function refreshDetailHead(): void {
  const row = detail.taskId ? model.rows.get(detail.taskId) : undefined;
  const shownState = document.querySelector('#detail .detail-head .state')?.classList;
  if (!row || reloading || shownState?.contains(row.state)) return;
  reloading = true;
  setTimeout(() => {
    reloading = false;
    if (detail.taskId) void open(detail.taskId, true);
  }, 0);
}

/**
 * Loads a task while no pull runs (it holds the pull's place), so the events after its load are exactly
 * those the next pull brings: none is lost to the detail, none shown twice.
 */
async function open(taskId: string, keepScroll = false): Promise<void> {
  list.select(taskId);
  while (pulling) await pulling;
  let done!: () => void;
  pulling = new Promise<void>((resolve) => (done = resolve));
  try {
    const scroll = keepScroll ? document.querySelector('#detail .transcript')?.scrollTop : undefined;
    const loaded = await api.task(taskId);
    detail.show(loaded, seqOf(loaded.cursor));
    if (scroll !== undefined) document.querySelector('#detail .transcript')!.scrollTop = scroll;
    if (detail.choices.length) detail.focusDefault();
  } catch (err) {
    say((err as Error).message, true);
  } finally {
    pulling = undefined;
    done();
    if (again) void pull();
  }
}

/** Enter/Space on anything but a Deny button must not press it (as in the approval window). */
function isGuardedActivation(event: KeyboardEvent): boolean {
  if (event.key !== 'Enter' && event.key !== ' ') return false;
  const target = event.target as HTMLElement | null;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return false;
  if (!(target instanceof HTMLButtonElement) || !target.closest('.choices')) return false;
  return target.dataset.tone !== 'deny';
}

document.addEventListener('keydown', (event) => {
  if (isGuardedActivation(event)) return event.preventDefault();
  if (event.ctrlKey || event.metaKey || event.repeat || !detail.taskId || !detail.choices.length) return;
  const target = event.target as HTMLElement | null;
  if (target instanceof HTMLInputElement) return;
  let hit;
  if (event.altKey) {
    const code = /^(?:Key([A-Z])|Digit(\d)|Numpad(\d))$/.exec(event.code);
    const key = code ? (code[1] ?? code[2] ?? code[3])!.toLowerCase() : '';
    hit = key ? detail.choices.find((c) => c.choice.altKeys.includes(key)) : undefined;
  } else {
    hit = detail.choices.find((c) => c.choice.keys.includes(event.key.toLowerCase()));
  }
  if (hit && !hit.button.disabled) {
    event.preventDefault();
    detail.answer(detail.taskId, hit.choice);
  }
});
document.addEventListener('keyup', (event) => {
  if (event.key === ' ' && isGuardedActivation(event)) event.preventDefault();
});

for (const input of [filterAgent, filterState]) input.addEventListener('change', () => redraw());
search.addEventListener('input', () => redraw());

/** A task main asked to show (a pressed toast of a question answered since) before the first snapshot came. */
let wanted: string | undefined;
let started = false;
api.onShowTask((taskId) => {
  if (started) void open(taskId);
  else wanted = taskId;
});

async function start(): Promise<void> {
  try {
    model.reset(await api.snapshot());
  } catch (err) {
    say(`Could not read the activity: ${(err as Error).message}`, true);
    return;
  }
  redraw();
  detail.clear();
  started = true;
  if (wanted) void open(wanted);
  api.onChange(() => void pull());
  // Events that came between the snapshot and listening.
  void pull();
}

setInterval(() => list.tick(), 1000);
void start();
