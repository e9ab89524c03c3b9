/**
 * What LiveTask lets into a task: it is the one place a task's events are made and its fields change, so
 * every channel that serves a task (tasks/get and tasks/list, the task's SSE stream, the bridge-wide
 * `/events` feed, a replay from the store, `pending/list`, the audit sink) gets what passed here, and
 * nothing an agent reports reaches a reader another way. Two rules apply to everything that passes:
 *
 * - the bridge's own tokens (install and derived) are removed wherever they are: reply text and parts,
 *   thoughts, plans, tool-call titles and locations, a permission's tool call, file bytes, object keys;
 * - JSON is cut at the depth every reader can parse (domain/json-depth.ts): a data part nested deeper is
 *   replaced by a note, deeper metadata by a marker.
 *
 * Status texts the bridge writes (failure reasons, warnings) also lose every credential-shaped string.
 */
import { AGENT_VALUE_DEPTH, capDepth } from '../domain/json-depth.js';
import { REDACTED, removeSecrets } from '../domain/redaction.js';
import type { Part } from '../domain/task.js';
import { withinDepth } from './reply-parts.js';

export class Scrubber {
  constructor(
    /** The bridge's tokens now (agents' derived tokens join as agents are added). */
    private readonly secrets: () => readonly string[] = () => [],
    /** Credential patterns and the tokens, for the status texts the bridge writes (domain/redaction.ts). */
    readonly statusText: (text: string) => string = (text) => text,
  ) {}

  /** A value an agent reported (metadata, a progress note), cut to depth and without the bridge's tokens. */
  value<T>(value: T): T {
    return withoutSecrets(capDepth(value, AGENT_VALUE_DEPTH), this.secrets()) as T;
  }

  /** A reply part: a data part nested past the depth becomes a note (as a request past it is refused). */
  part(part: Part): Part {
    return withoutSecrets(withinDepth(part), this.secrets()) as Part;
  }
}

/**
 * `value` with every `secrets` occurrence in its strings (keys too) and in a file part's decoded bytes
 * replaced by the marker. Untouched branches are returned as they are (no copy when nothing matched).
 * Callers cap the depth first: the walk is recursive.
 */
function withoutSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return removeSecrets(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  // Copied only from the first change on: most values hold no token, and every event's metadata passes here.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const clean = withoutSecrets(item, secrets);
      if (!out && clean !== item) out = value.slice(0, i);
      out?.push(clean);
    }
    return out ?? value;
  }
  // A file part's bytes are base64: searched as bytes below, never as text (13 MB of it for a 10 MB file).
  const file = fileBytesOf(value as Record<string, unknown>);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const item = record[key];
    const cleanKey = removeSecrets(key, secrets);
    const clean = file && key === 'file' ? fileWithout(file, secrets) : withoutSecrets(item, secrets);
    if (!out && (clean !== item || cleanKey !== key)) {
      out = {};
      for (const kept of keys.slice(0, i)) out[kept] = record[kept];
    }
    if (out) out[cleanKey] = clean;
  }
  return out ?? value;
}

/** A file part's `file` with its name, link and bytes cleaned; the same object when nothing matched. */
function fileWithout(file: { bytes: string } & Record<string, unknown>, secrets: readonly string[]): unknown {
  const { bytes, ...rest } = file;
  const cleanRest = withoutSecrets(rest, secrets) as Record<string, unknown>;
  const cleanBytes = bytesWithout(bytes, secrets);
  return cleanRest === rest && cleanBytes === bytes ? file : { ...cleanRest, bytes: cleanBytes };
}

/** The `file` of a file part with bytes (domain/task.ts FilePart), wherever one sits. */
function fileBytesOf(value: Record<string, unknown>): ({ bytes: string } & Record<string, unknown>) | undefined {
  if (value.kind !== 'file' || value.file === null || typeof value.file !== 'object') return undefined;
  const file = value.file as { bytes?: unknown } & Record<string, unknown>;
  return typeof file.bytes === 'string' ? (file as { bytes: string } & Record<string, unknown>) : undefined;
}

/**
 * A file's base64 bytes with each secret's UTF-8 bytes replaced by the marker's: a token written into a
 * file (a log, a config dump) is as readable as one in text. Base64 text itself never shows the token.
 */
function bytesWithout(base64: string, secrets: readonly string[]): string {
  // Decoding is the cost: first look for each secret as base64 text, in each of its three alignments.
  if (!secrets.some((secret) => base64Cores(secret).some((core) => base64.includes(core)))) return base64;
  const bytes = Buffer.from(base64, 'base64');
  const marker = Buffer.from(REDACTED);
  let out = bytes;
  for (const secret of secrets) {
    if (!secret) continue;
    const needle = Buffer.from(secret);
    let at = out.indexOf(needle);
    if (at < 0) continue;
    const pieces: Buffer[] = [];
    let from = 0;
    while (at >= 0) {
      pieces.push(out.subarray(from, at), marker);
      from = at + needle.length;
      at = out.indexOf(needle, from);
    }
    pieces.push(out.subarray(from));
    out = Buffer.concat(pieces);
  }
  return out === bytes ? base64 : out.toString('base64');
}

/**
 * What `secret` looks like inside base64 text when its bytes start at an offset of 0, 1 or 2 within a
 * 3-byte group: the characters that encode only its own bytes (the first and last groups may mix in
 * neighbours). Any file holding the secret shows one of these three.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [0, 1, 2].map((offset) => {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const whole = Math.floor(padded.length / 3) * 4;
    return padded.toString('base64').slice(offset === 0 ? 0 : 4, whole);
  });
}
