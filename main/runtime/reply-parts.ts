/**
 * Non-text content a backend reports (files, links, data) is checked before it joins the reply: what
 * cannot be passed on faithfully becomes a short note in its place that says what was dropped and why —
 * never a crash, never a silent loss.
 */
import { AGENT_VALUE_DEPTH, exceedsDepth } from '../domain/json-depth.js';
import type { Part, TextPart } from '../domain/task.js';

/** Standard base64 (ACP and A2A v0.3 bytes), padding optional. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/**
 * Links passed on to the requester. `file:` links name a path on this machine: passed on as they are,
 * never read by the bridge.
 */
const LINK_SCHEMES = ['http:', 'https:', 'file:'];

/** The part itself when it can be passed on, else a note saying what was dropped and why. */
export function checkedPart(part: Part): Part {
  if (part.kind === 'data') return withinDepth(part);
  if (part.kind !== 'file') return part;
  const { bytes, uri } = part.file;
  if (bytes !== undefined) {
    const body = bytes.replace(/\s+/g, '');
    if (!BASE64.test(body) || body.replace(/=+$/, '').length % 4 === 1) {
      return droppedNote(part, 'its bytes are not valid base64');
    }
    return body === bytes ? part : { ...part, file: { ...part.file, bytes: body } };
  }
  if (uri !== undefined) {
    const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(uri)?.[1]?.toLowerCase();
    if (!scheme || !LINK_SCHEMES.includes(scheme)) {
      return droppedNote(
        part,
        `links are passed on for ${LINK_SCHEMES.join(', ')} only, not ${scheme ?? 'a URI without a scheme'}`,
      );
    }
    return part;
  }
  return droppedNote(part, 'it has neither bytes nor a URI');
}

/**
 * A data part nested past what every reader can parse becomes a note, as a request nested past it is
 * refused (domain/json-depth.ts); checked before anything walks or serializes it recursively.
 */
export function withinDepth(part: Part): Part {
  if (part.kind !== 'data' || !exceedsDepth(part.data, AGENT_VALUE_DEPTH)) return part;
  return droppedNote(part, `it nests deeper than ${AGENT_VALUE_DEPTH} levels; flatten it`);
}

/** A note in the reply about a part that was left out. */
export function droppedNote(part: Part | string, why: string): TextPart {
  const what = typeof part === 'string' ? part : describePart(part);
  return { kind: 'text', text: `\n[${what} not included: ${why}]\n`, metadata: { dropped: true } };
}

/** `file "shot.png" (image/png)`, `data`, `text`: how a note names a part. */
export function describePart(part: Part): string {
  if (part.kind !== 'file') return part.kind === 'data' ? 'data' : 'text';
  const { name, mimeType } = part.file;
  return `file${name ? ` "${name}"` : ''}${mimeType ? ` (${mimeType})` : ''}`;
}
