import type { Part, Task } from '../domain/task.js';

/** `max_artifact_bytes` when the agent's settings name none. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 32 * 1024 * 1024;

/** What `metadata.truncated` records: the cap the reply text was cut at, and how much was dropped. */
export interface Truncation {
  at: number;
  droppedBytes: number;
}

/**
 * What a task may still keep of its replies, across all its turns: text in UTF-8 bytes, files in decoded
 * bytes (not their base64), data as its JSON. Beyond it content is dropped, not stored: an agent flooding
 * its output must not fill the database or the memory of every reader.
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

  /** Room for a whole non-text part of `bytes` (a file cannot be cut): true and counted, or dropped. */
  admit(bytes: number): boolean {
    if (bytes <= this.maxBytes - this.used) {
      this.used += bytes;
      return true;
    }
    this.dropped += bytes;
    return false;
  }

  get maxBytesPerTask(): number {
    return this.maxBytes;
  }

  /** The task's `metadata.truncated` after this turn, adding to what earlier turns dropped. */
  truncation(previous: unknown): Truncation {
    const before = (previous as Partial<Truncation> | undefined)?.droppedBytes;
    return { at: this.maxBytes, droppedBytes: (typeof before === 'number' ? before : 0) + this.dropped };
  }
}

export function artifactBytes(task: Task): number {
  let total = 0;
  for (const artifact of task.artifacts) for (const part of artifact.parts) total += partBytes(part);
  return total;
}

/** What one part costs against the cap: text bytes, a file's decoded bytes (a link: its URI), data's JSON. */
export function partBytes(part: Part): number {
  switch (part.kind) {
    case 'text':
      return Buffer.byteLength(part.text);
    case 'data':
      return Buffer.byteLength(JSON.stringify(part.data));
    case 'file':
      return part.file.bytes !== undefined ? base64Bytes(part.file.bytes) : Buffer.byteLength(part.file.uri ?? '');
    default: {
      const never: never = part;
      return never;
    }
  }
}

/** Decoded length of base64 text, without decoding it. */
export function base64Bytes(base64: string): number {
  const body = base64.replace(/=+$/, '');
  return Math.floor((body.length * 3) / 4);
}
