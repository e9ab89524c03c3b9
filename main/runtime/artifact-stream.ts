import type { Part } from '../domain/task.js';

/**
 * Batches reply text into artifact chunks (docs/contract.md#streaming). A chunk is flushed when 512
 * characters have accumulated, or when short text may leave: chunks of short text leave at least 15 ms
 * apart (counted from the reply's start), and no text waits longer than 20 ms after it arrived.
 *
 * - Text that arrives 15 ms or more after the last chunk left (or after the reply began) leaves at the end
 *   of its event-loop turn, with whatever else that turn brings. A steady agent writing every 10 ms thus
 *   sees every other piece leave on arrival, carrying the one before it: no piece waits more than one
 *   interval (bench: 48 characters every 10 ms reached an SSE reader ~20 ms after it was sent at p99
 *   when every chunk waited for a timer, ~10 ms now). The leave is decided on a piece's arrival, not by a
 *   timer, so a steady stream cannot fall into the phase where each piece arrives just after a flush.
 * - Text that arrives sooner is held; it leaves with the next piece that may leave, or 20 ms after the
 *   first held text arrived (a deadline armed once, never moved: re-armed by every piece, a steady stream
 *   never went quiet and waited for 512 characters).
 * - A reply whose text comes within 15 ms of its start and ends soon after (an agent answering at once)
 *   leaves as one chunk, as before.
 *
 * The cost bound: at most one short chunk per 15 ms per reply (stored events and SSE frames). The first
 * 512 characters of an event-loop turn leave at once; what else reaches 512 in the same turn (one pipe
 * read of a fast agent holds dozens of chunks) leaves as one chunk at the end of the turn, up to 64 KiB —
 * not one stored event and one SSE frame per 512 characters (bench: a 10 MB reply took 10,244 events and
 * ~75 ms of bridge CPU per MB, now ~1,000 and ~50 ms). A non-text part (a file, a link, data) goes out at
 * once as its own chunk, after the text buffered before it, so the parts keep the agent's order. The first
 * chunk creates the artifact (`append: false`); later ones append; `finish` sends `lastChunk: true`.
 */
export const CHUNK_CHARS = 512;
/** The window: no text waits longer than this for its chunk. */
export const CHUNK_IDLE_MS = 20;
/** Short chunks of one reply leave at least this far apart. */
export const CHUNK_GAP_MS = 15;
/** Text past this leaves at once, without waiting for the end of the turn: bounds one event's size. */
export const MAX_CHUNK_CHARS = 64 * 1024;

export interface ArtifactChunk {
  /** Text chunks hold one text part; a non-text part travels alone. */
  parts: Part[];
  append: boolean;
  lastChunk: boolean;
}

export class ArtifactStream {
  private buffer = '';
  private sent = 0;
  private parts = 0;
  /**
   * The text chunks sent so far: the reply is rebuilt from them when asked. Not a running `total += text`
   * of every piece: that rope would keep each piece alive to the end of the turn (a thousand per MB,
   * every one copied by the young-generation GC and promoted), where a sent chunk is one string that
   * the task's artifact keeps anyway.
   */
  private readonly sentText: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Armed by text that may leave now: flushes at the end of its turn. */
  private leaving: ReturnType<typeof setImmediate> | undefined;
  /** When the last chunk left, on `now`'s clock; the reply's start until one has. */
  private lastSentAt: number;
  /** Armed by the first flush of a turn: until it runs, text that reaches 512 waits for it. */
  private turnEnd: ReturnType<typeof setImmediate> | undefined;
  private finished = false;
  private isBlank = true;

  constructor(
    private readonly emit: (chunk: ArtifactChunk) => void,
    /**
     * The clock in ms (runtime/timers.ts's). A wall-clock jump moves one chunk only: a step forward lets it
     * leave early, a step back holds text to the window's deadline, which is a timer.
     */
    private readonly now: () => number = () => Date.now(),
  ) {
    this.lastSentAt = now();
  }

  /** Everything received so far, flushed or not. */
  get text(): string {
    return this.sentText.join('') + this.buffer;
  }

  /**
   * Nothing but whitespace received so far. Kept as text arrives: asking `text.trim()` of a long reply
   * would copy it whole (it is a rope of every piece) only to learn it is not blank.
   */
  get blank(): boolean {
    return this.isBlank;
  }

  /** Parts sent on their own so far (files, links, data, a text resource, a note about a dropped part). */
  get partCount(): number {
    return this.parts;
  }

  /** A non-text part (or a note about one that was dropped), after the text that came before it. */
  pushPart(part: Part): void {
    if (this.finished) return;
    if (this.buffer !== '') this.flush(false);
    this.clearTimer();
    this.parts += 1;
    this.sendChunk([part], false);
  }

  push(text: string): void {
    if (this.finished || text === '') return;
    this.buffer += text;
    if (this.isBlank && /\S/.test(text)) this.isBlank = false;
    if (this.buffer.length >= MAX_CHUNK_CHARS) {
      this.flush(false);
      return;
    }
    if (this.buffer.length >= CHUNK_CHARS) {
      if (this.turnEnd) return;
      // Armed before the flush: the flush's write opens the store's group commit, which commits in a
      // setImmediate of its own (stores/group-commit.ts), queued after this one. So the turn's rest joins
      // the first chunk's commit, and both reach subscribers in one delivery (one SSE socket write) —
      // one commit per pipe read of a fast agent, not two. The first chunk is told no later: nothing is
      // told before its commit anyway.
      this.turnEnd = setImmediate(() => this.endOfTurn());
      this.flush(false);
      return;
    }
    if (this.leaving) return;
    if (this.now() - this.lastSentAt >= CHUNK_GAP_MS) {
      // Held text goes with it: the flush takes the whole buffer.
      this.leaving = setImmediate(() => this.flush(false));
      return;
    }
    // Armed by the first held text only: no text waits longer than the window.
    this.timer ??= setTimeout(() => this.flush(false), CHUNK_IDLE_MS);
  }

  /** What reached 512 characters after the turn's first flush; less waits for the idle timer. */
  private endOfTurn(): void {
    this.turnEnd = undefined;
    if (!this.finished && this.buffer.length >= CHUNK_CHARS) this.flush(false);
  }

  /** Sends what is buffered with `lastChunk: true`; a no-op when nothing was ever received. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.sent === 0 && this.buffer === '') {
      this.clearTimer();
      return;
    }
    this.flush(true);
  }

  /** Stops without a last chunk (the task ended another way); later pushes are ignored. */
  abandon(): void {
    this.finished = true;
    this.clearTimer();
    if (this.turnEnd) clearImmediate(this.turnEnd);
    this.turnEnd = undefined;
  }

  private flush(lastChunk: boolean): void {
    this.clearTimer();
    if (this.buffer === '' && !lastChunk) return;
    const text = this.buffer;
    this.buffer = '';
    this.sentText.push(text);
    this.sendChunk([{ kind: 'text', text }], lastChunk);
  }

  private sendChunk(parts: Part[], lastChunk: boolean): void {
    const chunk = { parts, append: this.sent > 0, lastChunk };
    this.sent += 1;
    this.lastSentAt = this.now();
    this.emit(chunk);
  }

  /** Nothing buffered waits any more: neither the window's deadline nor an end-of-turn leave. */
  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.leaving) clearImmediate(this.leaving);
    this.leaving = undefined;
  }
}
