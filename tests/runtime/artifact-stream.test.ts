/**
 * What ArtifactStream reports about a whole reply (runtime/artifact-stream.ts): `text` is everything
 * received, sent or still buffered, and `blank` says whether any of it is more than whitespace — both
 * kept without a running copy of every piece.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ArtifactStream, type ArtifactChunk } from '../../main/runtime/artifact-stream.js';
import { textOf } from '../../main/domain/task.js';

afterEach(() => {
  vi.useRealTimers();
});

/** mulberry32: the same arrival pattern on every run for a seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

  it('short chunks leave at least 15 ms apart and no piece waits more than 20 ms, whatever the arrivals', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] });
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const chunks: { text: string; at: number }[] = [];
      const start = Date.now();
      const stream = new ArtifactStream(
        (chunk) => chunks.push({ text: textOf(chunk.parts), at: Date.now() - start }),
        () => Date.now(),
      );
      // 150 pieces of 1-20 characters (never 512 held), 1-30 ms apart: bursts, steady runs and pauses.
      const arrivals: { text: string; at: number }[] = [];
      for (let i = 0; i < 150; i++) {
        vi.advanceTimersByTime(1 + Math.floor(next() * 30));
        const text = `<${i}>`.padEnd(1 + Math.floor(next() * 20), '.');
        arrivals.push({ text, at: Date.now() - start });
        stream.push(text);
      }
      vi.advanceTimersByTime(25);
      stream.finish();

      expect(chunks.map((c) => c.text).join('')).toBe(arrivals.map((a) => a.text).join(''));
      // The last chunk is `finish`'s, at once: the bound is on the chunks the stream chose to send.
      const timed = chunks.slice(0, -1);
      expect(timed[0]!.at).toBeGreaterThanOrEqual(15);
      for (let i = 1; i < timed.length; i++) expect(timed[i]!.at - timed[i - 1]!.at).toBeGreaterThanOrEqual(15);
      // Pieces are never split: each chunk holds the next whole pieces, in order.
      let piece = 0;
      for (const chunk of chunks) {
        for (let held = 0; held < chunk.text.length; piece++) {
          expect(chunk.at - arrivals[piece]!.at).toBeLessThanOrEqual(20);
          held += arrivals[piece]!.text.length;
        }
      }
      expect(piece).toBe(arrivals.length);
    }
  });
});
