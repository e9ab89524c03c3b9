/**
 * What ArtifactStream reports about a whole reply (runtime/artifact-stream.ts): `text` is everything
 * received, sent or still buffered, and `blank` says whether any of it is more than whitespace — both
 * kept without a running copy of every piece.
 */
import { describe, expect, it } from 'vitest';
import { ArtifactStream, type ArtifactChunk } from '../../main/runtime/artifact-stream.js';

describe('ArtifactStream', () => {
  it('text is every piece in order, sent chunks and the buffered rest; blank until a visible character', () => {
    const sent: ArtifactChunk[] = [];
    const stream = new ArtifactStream((chunk) => sent.push(chunk));
    stream.push(' \n\t');
    stream.push('\r\n ');
    expect(stream.blank).toBe(true);
    expect(stream.text).toBe(' \n\t\r\n ');
    stream.push('x'.repeat(600)); // reaches 512: sent now
    stream.push('  tail');
    expect(sent).toHaveLength(1);
    expect(stream.blank).toBe(false);
    expect(stream.text).toBe(` \n\t\r\n ${'x'.repeat(600)}  tail`);
    stream.abandon();
    // Abandoned with text still buffered: the reply is still all of it.
    expect(stream.text).toBe(` \n\t\r\n ${'x'.repeat(600)}  tail`);
  });

  it('a reply of whitespace only stays blank after it is sent', () => {
    const stream = new ArtifactStream(() => undefined);
    stream.push(' '.repeat(700));
    stream.push('\n');
    stream.finish();
    expect(stream.blank).toBe(true);
    expect(stream.text).toBe(`${' '.repeat(700)}\n`);
  });
});
