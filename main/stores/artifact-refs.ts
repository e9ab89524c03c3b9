/**
 * A long reply is stored once. Its text is already in the task's artifact-update events (the stream's
 * log, which replay reads); a snapshot of the task holding that same text refers to those events instead
 * of repeating it (docs/architecture.md#the-task-database). A 10 MB reply was written three times: the
 * events, the final snapshot's JSON, and the WAL checkpoint's copy of that snapshot.
 *
 * The stored snapshot then has `""` as that part's text, and the row's `artifact_refs` says where the text
 * is (`TextRef`); `task_bytes` keeps the whole task's JSON size, so a page's byte budget is cut where it
 * always was. Readers put the text back (`withTexts`) and get the task they always got.
 *
 * Nothing here trusts how the runtime builds an artifact from its chunks: a text is referred to only when
 * it equals, character for character, the concatenation of the events' texts the reference names (checked
 * when the snapshot is written). Anything else (a text that was cut or merged differently, a file, data,
 * text with metadata, a text shorter than MIN_REFERENCED_CHARS, a store that never saw the events: after a
 * restart, or once the task has finished) is stored in the snapshot as before.
 */
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import type { Part, Task } from '../domain/task.js';

/** A shorter text stays in the snapshot: a reference would save less than the events it makes a read parse. */
export const MIN_REFERENCED_CHARS = 64 * 1024;

/**
 * `[artifact index, part index, first seq, last seq, characters]`: that part's text is the concatenation,
 * in seq order, of every text part of the task's artifact-update events for that artifact (by id) with a
 * seq from first to last; it has `characters` UTF-16 code units (a check that no event is missing).
 */
export type TextRef = [number, number, number, number, number];

/** A snapshot as the store keeps it: the JSON text of the row, and when it refers to events, how. */
export interface StoredForm {
  json: string;
  /** The row's `artifact_refs` (JSON of TextRef[]), null when `json` is the whole task. */
  refs: string | null;
  /** The row's `task_bytes`: the UTF-8 size of the whole task's JSON, null when `json` is the whole task. */
  bytes: number | null;
}

/**
 * Consecutive events of one artifact that hold only plain text: what a reply stream writes between two
 * other parts. A reference names one run (or, once an artifact is replaced or interrupted, a later one).
 */
interface Run {
  first: number;
  last: number;
  /** Its texts in order; after a snapshot matched the run, the one string that snapshot held. */
  texts: string[];
  chars: number;
  /** UTF-8 size of the concatenation written as a JSON string's content (between the quotes). */
  jsonBytes: number;
  /** The concatenation's last UTF-16 code unit (-1: none yet): two texts can join into one surrogate pair. */
  lastUnit: number;
  /** A part that is not plain text (or an `append: false`) ended it: the next text starts another run. */
  closed: boolean;
}

const isPlainText = (part: Part): part is Part & { kind: 'text' } => part.kind === 'text' && !part.metadata;
const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
/** `\udXXX` twice (12 bytes) when apart; the pair they make when joined is one 4-byte UTF-8 character. */
const JOINED_PAIR_SAVES = 8;

/**
 * The text runs of the tasks this connection is writing, from the events it was handed (stores/pending-writes.ts).
 * Only unfinished tasks are kept: a task leaves with its terminal snapshot, and every task when a group is
 * lost (its events were never stored, so nothing may refer to them).
 */
export class TextRuns {
  private readonly tasks = new Map<string, Map<string, Run[]>>();

  /**
   * Records a task's events as they are stored: `stored` holds the JSON text of each of them but the
   * `task` snapshot events (which are not stored), in order.
   */
  note(taskId: string, events: readonly StreamEvent[], stored: readonly { json: string }[]): void {
    let n = 0;
    for (const event of events) {
      if (event.kind === 'task') continue;
      const json = stored[n++]!.json;
      if (event.kind !== 'artifact-update') continue;
      let artifacts = this.tasks.get(taskId);
      if (!artifacts) this.tasks.set(taskId, (artifacts = new Map()));
      const { artifactId, parts } = event.artifact;
      let runs = artifacts.get(artifactId);
      if (!runs) artifacts.set(artifactId, (runs = []));
      const open = runs.at(-1);
      if (open && (!event.append || !parts.every(isPlainText))) open.closed = true;
      if (!parts.every(isPlainText)) continue;
      let run = runs.at(-1);
      if (!run || run.closed) {
        run = { first: event.seq, last: event.seq, texts: [], chars: 0, jsonBytes: 0, lastUnit: -1, closed: false };
        runs.push(run);
      }
      run.last = event.seq;
      run.jsonBytes += textJsonBytes(event, json);
      for (const part of parts) {
        const text = part.text;
        if (text === '') continue;
        if (isHighSurrogate(run.lastUnit) && isLowSurrogate(text.charCodeAt(0))) run.jsonBytes -= JOINED_PAIR_SAVES;
        run.texts.push(text);
        run.chars += text.length;
        run.lastUnit = text.charCodeAt(text.length - 1);
      }
    }
  }

  /**
   * The task as the store keeps it: with its long reply texts referred to when the events hold them
   * exactly, or undefined when nothing can be (the snapshot is then stored whole).
   */
  storedForm(task: Task): StoredForm | undefined {
    const artifacts = this.tasks.get(task.id);
    if (!artifacts) return undefined;
    const refs: TextRef[] = [];
    let textBytes = 0;
    task.artifacts.forEach((artifact, a) => {
      const runs = artifacts.get(artifact.artifactId);
      if (!runs) return;
      artifact.parts.forEach((part, p) => {
        if (!isPlainText(part) || part.text.length < MIN_REFERENCED_CHARS) return;
        const run = runs.find((r) => holds(r, part.text));
        if (!run) return;
        refs.push([a, p, run.first, run.last, run.chars]);
        textBytes += run.jsonBytes;
        // The snapshot's string now stands for the run: the pieces can go (the task keeps this one anyway).
        run.texts = [part.text];
      });
    });
    if (refs.length === 0) return undefined;
    const json = JSON.stringify(withoutTexts(task, refs));
    return { json, refs: JSON.stringify(refs), bytes: Buffer.byteLength(json) + textBytes };
  }

  /** The task finished (or its write failed): nothing later may refer to what was seen of it. */
  drop(taskId: string): void {
    this.tasks.delete(taskId);
  }

  /** A group was lost: its events are not stored, so no snapshot may refer to any run seen so far. */
  clear(): void {
    this.tasks.clear();
  }
}

/**
 * A stored snapshot with its referred texts put back. `eventsBetween` returns the JSON text of the task's
 * events with seq from `first` to `last`, in order. Throws when the events do not hold what the reference
 * says (a damaged database), rather than answer with a shortened reply.
 */
export function withTexts(
  stub: Task,
  refs: readonly TextRef[],
  eventsBetween: (first: number, last: number) => string[],
): Task {
  for (const [a, p, first, last, chars] of refs) {
    const artifact = stub.artifacts[a];
    const part = artifact?.parts[p];
    if (!artifact || part?.kind !== 'text') throw damaged(stub.id, `its artifact ${a} part ${p} is not a text`);
    const texts: string[] = [];
    for (const json of eventsBetween(first, last)) {
      const event = JSON.parse(json) as TaskEvent;
      if (event.kind !== 'artifact-update' || event.artifact.artifactId !== artifact.artifactId) continue;
      for (const eventPart of event.artifact.parts) if (eventPart.kind === 'text') texts.push(eventPart.text);
    }
    const text = texts.join('');
    if (text.length !== chars) {
      throw damaged(stub.id, `events ${first}-${last} hold ${text.length} of the ${chars} characters of a reply`);
    }
    part.text = text;
  }
  return stub;
}

function damaged(taskId: string, what: string): Error {
  return new Error(
    `The stored task ${taskId} is damaged: ${what}. Its events were changed outside contactor; restore the task database from a backup.`,
  );
}

/** Does the run's concatenation equal `text`? Compared in place, piece by piece. */
function holds(run: Run, text: string): boolean {
  if (run.chars !== text.length) return false;
  let at = 0;
  for (const piece of run.texts) {
    if (!text.startsWith(piece, at)) return false;
    at += piece.length;
  }
  return true;
}

/**
 * The UTF-8 size of an event's texts as JSON string contents: the event's JSON less the same event with
 * every text empty. Measured on the text already serialized, never by serializing the texts again.
 */
function textJsonBytes(event: TaskEvent & { kind: 'artifact-update' }, json: string): number {
  const parts = event.artifact.parts.map((part) => ({ ...part, text: '' }));
  const emptied = JSON.stringify({ ...event, artifact: { ...event.artifact, parts } });
  return Buffer.byteLength(json) - Buffer.byteLength(emptied);
}

/** The task with each referred text empty; a copy only along the paths it changes (key order kept). */
function withoutTexts(task: Task, refs: readonly TextRef[]): Task {
  const artifacts = task.artifacts.slice();
  for (const [a, p] of refs) {
    const artifact = artifacts[a]!;
    const parts = artifact.parts === task.artifacts[a]!.parts ? artifact.parts.slice() : artifact.parts;
    parts[p] = { ...parts[p]!, text: '' } as Part;
    artifacts[a] = { ...artifact, parts };
  }
  return { ...task, artifacts };
}
