/**
 * The scrubber (runtime/scrubber.ts) finds a token in a file's bytes wherever it starts within a base64
 * group (it looks in the base64 text before decoding), and leaves what holds no token as the same object.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../main/domain/redaction.js';
import type { Part } from '../../main/domain/task.js';
import { Scrubber } from '../../main/runtime/scrubber.js';

const TOKEN = 'Mx-GDH4O0WsEc8NcMVWqUB5UeI1tTobAwe8w9eiDSVQ';
const scrubber = new Scrubber(() => ['other-token-not-present-anywhere-0123456789', TOKEN]);

function file(text: string): Part {
  return { kind: 'file', file: { bytes: Buffer.from(text).toString('base64'), name: 'f.bin' } };
}

describe('Scrubber', () => {
  it.each([0, 1, 2, 3, 4, 5])('removes a token starting %i bytes into a file', (offset) => {
    const before = 'x'.repeat(offset);
    const clean = scrubber.part(file(`${before}${TOKEN}|${TOKEN}`));
    expect(clean.kind === 'file' && Buffer.from(clean.file.bytes!, 'base64').toString()).toBe(
      `${before}${REDACTED}|${REDACTED}`,
    );
  });

  it('returns a part and a value without any token as they are', () => {
    const part = file('nothing to see here, at some length: 0123456789abcdef');
    expect(scrubber.part(part)).toBe(part);
    const value = { a: [1, 'two', { three: null }] };
    expect(scrubber.value(value)).toBe(value);
  });

  it('cleans keys, names and links of a file as well as its bytes', () => {
    const part: Part = { kind: 'file', file: { uri: `https://x.example/?t=${TOKEN}`, name: `${TOKEN}.txt` } };
    expect(scrubber.part(part)).toEqual({
      kind: 'file',
      file: { uri: `https://x.example/?t=${REDACTED}`, name: `${REDACTED}.txt` },
    });
    expect(scrubber.value({ [TOKEN]: TOKEN })).toEqual({ [REDACTED]: REDACTED });
  });
});
