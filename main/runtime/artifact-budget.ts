import type { Task } from '../domain/task.js';

/** `max_artifact_bytes` when the agent's settings name none. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 32 * 1024 * 1024;

/** What `metadata.truncated` records: the cap the reply text was cut at, and how much was dropped. */
export interface Truncation {
  at: number;
  droppedBytes: number;
}

/**
 * The reply text a task may still keep, in UTF-8 bytes, across all its turns. Text beyond it is dropped,
 * not stored: an agent flooding its output must not fill the database or the memory of every reader.
 */
export class ArtifactBudget {
  private used: number;
  private dropped = 0;

  constructor(
    private readonly maxBytes: number,
    task: Task,
  ) {
    this.used = artifactBytes(task);
  }

  get droppedBytes(): number {
    return this.dropped;
  }

  /** The part of `text` that still fits, cut on a character boundary; the rest counts as dropped. */
  take(text: string): string {
    const bytes = Buffer.byteLength(text);
    const room = this.maxBytes - this.used;
    if (bytes <= room) {
      this.used += bytes;
      return text;
    }
    const encoded = Buffer.from(text);
    let cut = Math.max(0, room);
    // Back off continuation bytes (10xxxxxx) so a multi-byte character is kept whole or not at all.
    while (cut > 0 && (encoded[cut]! & 0xc0) === 0x80) cut -= 1;
    this.used += cut;
    this.dropped += bytes - cut;
    return encoded.subarray(0, cut).toString('utf8');
  }

  /** The task's `metadata.truncated` after this turn, adding to what earlier turns dropped. */
  truncation(previous: unknown): Truncation {
    const before = (previous as Partial<Truncation> | undefined)?.droppedBytes;
    return { at: this.maxBytes, droppedBytes: (typeof before === 'number' ? before : 0) + this.dropped };
  }
}

export function artifactBytes(task: Task): number {
  let total = 0;
  for (const artifact of task.artifacts) {
    for (const part of artifact.parts) if (part.kind === 'text') total += Buffer.byteLength(part.text);
  }
  return total;
}
