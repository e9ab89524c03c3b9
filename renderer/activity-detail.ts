/**
 * One task in full: the brief, the reply as it streams (appended once per frame into blocks of a bounded
 * size, so a reply of megabytes never re-lays out as a whole), tool calls, plans, questions with their
 * answers, artifacts, the receipt, and its children. Everything from the task goes in as text only
 * (page-text.ts: hidden characters shown as marks); an image is shown only from bytes the bridge holds (a data: URL, which the CSP allows), size-capped.
 */
import type { ActivityRow } from '../main/domain/activity.js';
import type { Artifact, Part } from '../main/domain/task.js';
import type { TextLayout } from '../main/domain/visible-text.js';
import type { ActivityApi, ActivityDetailItem, ActivityEntry, PendingItem } from '../main/schema/ipc.js';
import { div, elapsed, span } from './activity-list.js';
import { choicesOf, defaultChoice, keyHint, type Choice } from './choices.js';
import { attributeText, setText, textNode } from './page-text.js';

/** Characters per transcript block: appending touches only the last one. */
const BLOCK_CHARS = 32_768;
/** At most this much text goes in per frame (a reply loaded whole is shown over a few frames). */
const FRAME_CHARS = 262_144;
/** Images larger than this (in base64 characters) get a save button instead. */
export const IMAGE_MAX_CHARS = 2 * 1024 * 1024;
const SHOWN_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export class TaskDetail {
  taskId: string | undefined;
  /** Events up to this seq are in what was loaded. */
  loadedSeq = 0;
  private transcript: HTMLElement | undefined;
  private block: HTMLElement | undefined;
  private blockChars = 0;
  private pendingText = '';
  private flushing = false;
  private notes: HTMLElement | undefined;
  choices: { choice: Choice; button: HTMLButtonElement }[] = [];

  constructor(
    private readonly box: HTMLElement,
    private readonly api: ActivityApi,
    private readonly say: (text: string, bad?: boolean) => void,
    private readonly onOpen: (taskId: string) => void,
  ) {}

  show(detail: ActivityDetailItem, loadedSeq: number): void {
    this.taskId = detail.task.id;
    this.loadedSeq = loadedSeq;
    this.pendingText = '';
    this.box.replaceChildren();
    const { task, row } = detail;
    this.box.append(this.header(row), this.actions(row));
    const pending = task.metadata.pending;
    this.choices = [];
    if (pending) this.box.append(this.question({ taskId: task.id, agent: row.agent, request: row.brief, pending }));

    const brief = task.history.find((m) => m.role === 'user');
    this.box.append(heading('Brief'), pre('brief-text', textOf(brief?.parts ?? [])));

    this.box.append(heading('Reply'));
    this.transcript = div('transcript');
    this.transcript.setAttribute('aria-live', 'off');
    this.block = undefined;
    this.blockChars = 0;
    this.box.append(this.transcript);
    for (const artifact of task.artifacts) this.addArtifact(artifact);

    this.notes = div('notes');
    this.box.append(heading('Tool calls and plans'), this.notes);
    for (const note of detail.notes) this.addNote(note.kind, note.text, note.data);

    const questions = Array.isArray(task.metadata.questions)
      ? (task.metadata.questions as Record<string, unknown>[])
      : [];
    if (questions.length) {
      const list = div('questions');
      for (const q of questions)
        list.append(
          line(
            `${String(q.kind)}: ${String(q.about)} → ${String(q.outcome)}${q.answer ? ` "${String(q.answer)}"` : ''} by ${String(q.by)}`,
          ),
        );
      this.box.append(heading('Questions'), list);
    }
    if (task.status.message) this.box.append(heading('Status'), pre('status-text', textOf(task.status.message.parts)));
    this.box.append(heading('Receipt'), this.receipt(task.metadata));
    if (detail.children.length) {
      const kids = div('children');
      for (const child of detail.children) {
        const b = button(`${child.agent} · ${child.state} · ${child.brief}`, 'child', () => this.onOpen(child.taskId));
        kids.append(b);
      }
      this.box.append(heading('Delegated'), kids);
    }
  }

  /** A feed event of the shown task, after what was loaded: appended, never re-rendered. */
  follow(entry: ActivityEntry): void {
    const { event } = entry;
    if (event.taskId !== this.taskId) return;
    if (event.kind === 'artifact-update') {
      for (const part of event.artifact.parts) {
        if (part.kind === 'text') this.appendText(part.text);
        else this.addPart(event.artifact.artifactId, part, -1);
      }
      return;
    }
    const meta = event.metadata;
    if (meta?.event === 'progress') {
      const p = meta.progress as { kind: string; text: string; data?: unknown };
      this.addNote(p.kind, p.text, p.data);
    }
  }

  clear(): void {
    this.taskId = undefined;
    this.box.replaceChildren(line('Select a task to see what it is doing.'));
  }

  private header(row: ActivityRow): HTMLElement {
    const head = div('detail-head');
    const chain = row.caller === 'person' ? ['you', ...row.chain] : row.chain;
    head.append(
      span('chain', chain.join(' → ')),
      span(`state ${row.state}`, `${row.state} · ${elapsed(row.since, Date.now())}`),
    );
    const id = span('task-id', row.taskId);
    head.append(id);
    return head;
  }

  private actions(row: ActivityRow): HTMLElement {
    const bar = div('actions');
    const finished = ['completed', 'failed', 'canceled', 'rejected'].includes(row.state);
    const act = (label: string, run: () => Promise<{ ok: boolean; message?: string } | void>, done: string) =>
      button(label, 'action', () => {
        void run().then(
          (r) => (r && !r.ok ? this.say(r.message ?? 'refused', true) : this.say(done)),
          (err: unknown) => this.say((err as Error).message, true),
        );
      });
    if (!finished) bar.append(act('Cancel', () => this.api.cancel(row.taskId), 'Canceled'));
    bar.append(
      act('Copy task id', () => this.api.copyTaskId(row.taskId), 'Task id copied'),
      act('Send again', () => this.api.sendAgain(row.taskId), 'Sent again as a new task'),
      act(`Open ${row.agent}'s log`, () => this.api.openLog(row.agent), 'Log opened'),
    );
    return bar;
  }

  private question(item: PendingItem): HTMLElement {
    const box = div('question');
    const p = item.pending;
    box.append(
      p.kind === 'permission' ? line(`${item.agent} wants to: ${p.toolCall.title}`, 'one-line') : line(p.question),
    );
    if (p.kind === 'decision' && p.reason) box.append(line(`Recommends ${p.recommend}: ${p.reason}`));
    const buttons = div('choices');
    for (const choice of choicesOf(item)) {
      const b = button(choice.label, `choice ${choice.tone}`, () => this.answer(item.taskId, choice));
      b.dataset.tone = choice.tone;
      if (choice.altKeys.length) b.title = `Alt+${choice.altKeys[0]!.toUpperCase()}`;
      buttons.append(b);
      this.choices.push({ choice, button: b });
    }
    box.append(buttons, span('keys', keyHint(choicesOf(item))));
    return box;
  }

  answer(taskId: string, choice: Choice): void {
    for (const c of this.choices) c.button.disabled = true;
    void this.api.answer(taskId, choice.answer).then(
      (r) => (r.ok ? this.say(`✓ ${choice.confirmation}`) : this.say(r.message, true)),
      (err: unknown) => this.say((err as Error).message, true),
    );
  }

  /** Deny, for focus when a question is shown (choices.ts: only a refusal is ever the default). */
  focusDefault(): void {
    const deny = defaultChoice(this.choices.map((c) => c.choice));
    this.choices.find((c) => c.choice === deny)?.button.focus({ preventScroll: true });
  }

  private addArtifact(artifact: Artifact): void {
    artifact.parts.forEach((part, i) => {
      if (part.kind === 'text') this.appendText(part.text);
      else this.addPart(artifact.artifactId, part, i);
    });
  }

  private addPart(artifactId: string, part: Part, index: number): void {
    const box = div('part');
    const save = () =>
      button('Save…', 'action', () => {
        void this.api
          .save(this.taskId!, artifactId, index)
          .then((r) => (r.ok ? this.say('Saved') : this.say(r.message, true)));
      });
    if (part.kind === 'file') {
      const { bytes, mimeType, name, uri } = part.file;
      box.append(line(`file ${name ?? ''} ${mimeType ?? ''}`.trim()));
      if (bytes !== undefined && mimeType && SHOWN_IMAGE_TYPES.includes(mimeType) && bytes.length <= IMAGE_MAX_CHARS) {
        const img = document.createElement('img');
        img.alt = attributeText(name ?? 'image');
        img.src = `data:${mimeType};base64,${bytes}`;
        box.append(img);
      }
      if (uri) box.append(line(`a link (not opened): ${uri}`));
    } else if (part.kind === 'data') {
      const text = JSON.stringify(part.data, null, 2);
      box.append(pre('data', text.length > 10_000 ? `${text.slice(0, 10_000)}\n…` : text));
    }
    // A part that arrived by stream has no index in the stored artifact yet: reopen the task to save it.
    if (index >= 0 && (part.kind === 'data' || (part.kind === 'file' && part.file.bytes !== undefined)))
      box.append(save());
    this.block = undefined;
    this.transcript?.append(box);
  }

  private addNote(kind: string, text: string, data: unknown): void {
    if (!this.notes) return;
    const d = (data ?? {}) as { kind?: string; status?: string; locations?: { path: string; line?: number }[] };
    const where = d.locations?.map((l) => (l.line ? `${l.path}:${l.line}` : l.path)).join(', ');
    const note = div(`note ${kind}`);
    note.append(span('note-kind', kind === 'tool_call' || kind === 'tool_call_update' ? (d.kind ?? 'tool') : kind));
    note.append(span('note-text', text));
    if (where) note.append(span('note-where', where));
    this.notes.append(note);
  }

  private appendText(text: string): void {
    if (!text) return;
    this.pendingText += text;
    if (this.flushing) return;
    this.flushing = true;
    requestAnimationFrame(() => this.flush());
  }

  /** Once per frame: the text that arrived (up to FRAME_CHARS), into the last block (a new one when it is full). */
  private flush(): void {
    this.flushing = false;
    const box = this.transcript;
    if (!box) return;
    const follow = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    let text = this.pendingText.slice(0, cutAt(this.pendingText, FRAME_CHARS));
    this.pendingText = this.pendingText.slice(text.length);
    if (this.pendingText) {
      this.flushing = true;
      requestAnimationFrame(() => this.flush());
    }
    while (text) {
      if (!this.block || this.blockChars >= BLOCK_CHARS) {
        this.block = document.createElement('pre');
        this.block.className = 'block';
        this.blockChars = 0;
        box.append(this.block);
      }
      const take = text.slice(0, cutAt(text, BLOCK_CHARS - this.blockChars));
      this.block.append(textNode(take));
      this.blockChars += take.length;
      text = text.slice(take.length);
    }
    if (follow) box.scrollTop = box.scrollHeight;
  }

  private receipt(meta: Record<string, unknown>): HTMLElement {
    const list = div('receipt');
    const facts: [string, unknown][] = [
      ['agent', meta.agent],
      ['created', meta.createdAt],
      ['created by', meta.createdBy],
      ['cwd', meta.cwd],
      ['warning', meta.warning],
      ['answered by', meta.answeredBy],
      ['exit code', meta.exitCode],
      ...Object.entries((meta.receipt ?? {}) as Record<string, unknown>),
    ];
    for (const [k, v] of facts) {
      if (v === undefined) continue;
      list.append(line(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`));
    }
    return list;
  }
}

/**
 * Where to cut `text` near `at`: never between the halves of a surrogate pair, since each half alone would
 * show as a mark (page-text.ts); one more character rather than none.
 */
function cutAt(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const high = text.charCodeAt(at - 1);
  return high >= 0xd800 && high <= 0xdbff ? (at > 1 ? at - 1 : at + 1) : at;
}

function textOf(parts: Part[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

function line(text: string, layout?: TextLayout): HTMLElement {
  const el = document.createElement('p');
  setText(el, text, layout);
  return el;
}
function pre(cls: string, text: string): HTMLElement {
  const el = document.createElement('pre');
  el.className = cls;
  setText(el, text);
  return el;
}
function heading(text: string): HTMLElement {
  const el = document.createElement('h2');
  setText(el, text);
  return el;
}
function button(label: string, cls: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = cls;
  setText(b, label, 'one-line');
  b.addEventListener('click', onClick);
  return b;
}
