/**
 * What a person reads (SECURITY.md#what-a-person-reads): the one function every agent-originated string
 * passes through before a screen shows it — the CLI's output layer, `contactor top`, the approval and
 * activity windows, toasts. A terminal obeys control characters and escape sequences (move the cursor,
 * erase a line, write the clipboard, make a link), and bidi overrides, zero-width and tag characters change
 * or hide what a person reads in a terminal and in a window alike. Nothing is removed: each such character
 * is replaced by a visible mark, so a person sees that something was there instead of a cleaned-up lie.
 *
 * The notation:
 * - C0 controls and DEL as their Unicode control pictures: ESC `␛`, CR `␍`, BS `␈`, BEL `␇`, NUL `␀`, DEL `␡`
 *   (U+2400 + the code, U+2421 for DEL); so `ESC [2K` reads `␛[2K`.
 * - C1 controls (U+0080–009F), format characters (bidi overrides and isolates, zero-width characters, U+FEFF,
 *   the soft hyphen, tag characters: Unicode category Cf) and the line and paragraph separators
 *   U+2028/U+2029 as `<U+202E>`; so is half of a surrogate pair without its other half (two pieces of a
 *   stream would otherwise join into a tag character after each was marked). So is every other character
 *   Unicode says to draw as nothing (Default_Ignorable_Code_Point, not all of them format characters): the
 *   Hangul fillers U+115F/U+1160/U+3164/U+FFA0, the combining grapheme joiner, the Mongolian variation
 *   selectors, VS17–VS256 (U+E0100–E01EF) and the unassigned rest of the tag block and U+2065, which a
 *   later Unicode may draw as nothing too. Only VS15/VS16 (U+FE0E/FE0F) stay: they pick an emoji's text or
 *   picture form, in nearly every emoji, and say nothing else.
 * - `lines` (the default) keeps line feeds and tabs, and reads CR LF as a line feed (nothing is written
 *   between the two, so nothing can be overwritten); `one-line` (a command, a title) shows them too: `␊`,
 *   `␉`, `␍␊`.
 * The result holds none of the characters above, so marking a text twice changes nothing.
 */

export type TextLayout = 'lines' | 'one-line';

const HIDDEN = /\r\n|[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]|(?![\uFE0E\uFE0F])\p{Default_Ignorable_Code_Point}/gu;

export function visible(text: string, layout: TextLayout = 'lines'): string {
  return text.replace(HIDDEN, (found) => {
    if (found === '\r\n') return layout === 'lines' ? '\n' : '␍␊';
    if (layout === 'lines' && (found === '\n' || found === '\t')) return found;
    const code = found.codePointAt(0)!;
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '␡';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
