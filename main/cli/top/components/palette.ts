/**
 * Colours of the screen, or none: NO_COLOR and a terminal without colours get the same screen in plain
 * text (selection shown by a marker and inverse video, which are not colours). Ink's own colour library
 * does not read NO_COLOR, so no component names a colour unless the palette gives one.
 */
import type { Tone } from '../layout.js';

export interface Palette {
  tone(tone: Tone): string | undefined;
  accent: string | undefined;
  dim: boolean;
}

const TONES: Record<Tone, string> = {
  running: 'green',
  waiting: 'cyan',
  question: 'yellow',
  done: 'gray',
  failed: 'red',
};

export function paletteFor(colors: boolean): Palette {
  return colors
    ? { tone: (t) => TONES[t], accent: 'cyan', dim: true }
    : { tone: () => undefined, accent: undefined, dim: false };
}
