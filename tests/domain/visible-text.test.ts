/**
 * The notation of what a person reads (SECURITY.md#what-a-person-reads): each sequence an agent could use to
 * drive a terminal or to hide or reverse words, and what a person sees instead. Expected values are written
 * out here, never computed by the code under test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { visible } from '../../main/domain/visible-text.js';

/** [what, agent text, as shown in `lines`, as shown in `one-line`] */
const NOTATION: [string, string, string, string][] = [
  ['CSI cursor up, erase line', 'a\u001b[1A\u001b[2Kb', 'a␛[1A␛[2Kb', 'a␛[1A␛[2Kb'],
  ['CSI clear screen', '\u001b[2J\u001b[H', '␛[2J␛[H', '␛[2J␛[H'],
  ['SGR conceal', '\u001b[8mhidden\u001b[0m', '␛[8mhidden␛[0m', '␛[8mhidden␛[0m'],
  ['CR', 'rm -rf ~\rls', 'rm -rf ~␍ls', 'rm -rf ~␍ls'],
  ['CR LF', 'a\r\nb', 'a\nb', 'a␍␊b'],
  ['LF', 'a\nb', 'a\nb', 'a␊b'],
  ['tab', 'a\tb', 'a\tb', 'a␉b'],
  ['BS', 'rm\b\bls', 'rm␈␈ls', 'rm␈␈ls'],
  ['BEL, NUL, DEL', '\u0007\u0000\u007f', '␇␀␡', '␇␀␡'],
  ['OSC 52 clipboard write', '\u001b]52;c;cHduZWQ=\u0007', '␛]52;c;cHduZWQ=␇', '␛]52;c;cHduZWQ=␇'],
  [
    'OSC 8 link',
    '\u001b]8;;https://evil.test\u001b\\docs\u001b]8;;\u001b\\',
    '␛]8;;https://evil.test␛\\docs␛]8;;␛\\',
    '␛]8;;https://evil.test␛\\docs␛]8;;␛\\',
  ],
  ['OSC 2 title', '\u001b]2;PWNED\u0007', '␛]2;PWNED␇', '␛]2;PWNED␇'],
  ['DCS', '\u001bP1$r0m\u001b\\', '␛P1$r0m␛\\', '␛P1$r0m␛\\'],
  ['C1 CSI and NEL', '\u009b2J\u0085', '<U+009B>2J<U+0085>', '<U+009B>2J<U+0085>'],
  ['RLO', 'ls \u202Egnp.exe', 'ls <U+202E>gnp.exe', 'ls <U+202E>gnp.exe'],
  [
    'LRE, RLE, PDF, LRO',
    '\u202A\u202B\u202C\u202D',
    '<U+202A><U+202B><U+202C><U+202D>',
    '<U+202A><U+202B><U+202C><U+202D>',
  ],
  [
    'isolates',
    '\u2066a\u2067b\u2068c\u2069',
    '<U+2066>a<U+2067>b<U+2068>c<U+2069>',
    '<U+2066>a<U+2067>b<U+2068>c<U+2069>',
  ],
  [
    'zero-width and direction marks',
    'r\u200Bm\u200C\u200D\u200E\u200F',
    'r<U+200B>m<U+200C><U+200D><U+200E><U+200F>',
    'r<U+200B>m<U+200C><U+200D><U+200E><U+200F>',
  ],
  ['line and paragraph separators', 'a\u2028b\u2029c', 'a<U+2028>b<U+2029>c', 'a<U+2028>b<U+2029>c'],
  ['BOM, soft hyphen, word joiner', '\uFEFFr\u00ADm\u2060', '<U+FEFF>r<U+00AD>m<U+2060>', '<U+FEFF>r<U+00AD>m<U+2060>'],
  ['half a surrogate pair', 'a\uDB40|\uDC41b', 'a<U+DB40>|<U+DC41>b', 'a<U+DB40>|<U+DC41>b'],
  ['tag characters', 'ok\u{E0001}\u{E0041}\u{E007F}', 'ok<U+E0001><U+E0041><U+E007F>', 'ok<U+E0001><U+E0041><U+E007F>'],
  [
    'Hangul fillers drawn as nothing or as blanks',
    'rm\u3164x\u115F\u1160\uFFA0',
    'rm<U+3164>x<U+115F><U+1160><U+FFA0>',
    'rm<U+3164>x<U+115F><U+1160><U+FFA0>',
  ],
  [
    'combining grapheme joiner, Mongolian and ideographic variation selectors',
    'a\u034Fb\u180Bc\u{E0100}\u{E01EF}',
    'a<U+034F>b<U+180B>c<U+E0100><U+E01EF>',
    'a<U+034F>b<U+180B>c<U+E0100><U+E01EF>',
  ],
  ['unassigned, to be drawn as nothing', 'a\u2065b\u{E0080}', 'a<U+2065>b<U+E0080>', 'a<U+2065>b<U+E0080>'],
  [
    "an emoji's picture and text forms stay",
    '\u2764\uFE0F \u2764\uFE0E',
    '\u2764\uFE0F \u2764\uFE0E',
    '\u2764\uFE0F \u2764\uFE0E',
  ],
  [
    'ordinary text',
    'héllo — 日本語 😀 ␛ <U+202E> C:\\new',
    'héllo — 日本語 😀 ␛ <U+202E> C:\\new',
    'héllo — 日本語 😀 ␛ <U+202E> C:\\new',
  ],
];

/** What must never be left: C0 but LF and tab, DEL, C1, the format characters, U+2028/9, the tag block. */
const HIDDEN_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u2028\u2029\ufeff\ufff9-\ufffb]|[\u{e0001}\u{e0020}-\u{e007f}]/u;
const HIDDEN_ONE_LINE = new RegExp(`${HIDDEN_LINES.source}|[\\n\\t]`, 'u');

/** Characters next to the edges of what is marked, mixed into random text. */
const EDGES = [
  '\r',
  '\n',
  '\t',
  '\r\n',
  '\u001b',
  '\u0085',
  '\u00a0',
  '\u202e',
  '\u200b',
  '\u2028',
  '\ufeff',
  '\u{e0041}',
  '\u{e0080}',
  'a',
  ' ',
];

describe('visible: what a person reads', () => {
  it.each(NOTATION)('%s', (_what, text, lines, oneLine) => {
    expect(visible(text)).toBe(lines);
    expect(visible(text, 'one-line')).toBe(oneLine);
  });

  it('the attack of a permission request reads as what would run', () => {
    expect(visible('rm -rf ~/work \r\u001b[2K\u001b[1A\u001b[2K    command: ls -la', 'one-line')).toBe(
      'rm -rf ~/work ␍␛[2K␛[1A␛[2K    command: ls -la',
    );
  });

  it('leaves nothing hidden in any text, and marking twice changes nothing', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(fc.constantFrom(...EDGES), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
        }),
        (text) => {
          const lines = visible(text);
          const one = visible(text, 'one-line');
          expect(HIDDEN_LINES.test(lines)).toBe(false);
          expect(HIDDEN_ONE_LINE.test(one)).toBe(false);
          expect(visible(lines)).toBe(lines);
          expect(visible(one, 'one-line')).toBe(one);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
