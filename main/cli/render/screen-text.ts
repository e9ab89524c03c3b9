/**
 * Text on its way to a person's terminal, as data (SECURITY.md#what-a-person-reads). A plain string is
 * always treated as untrusted: the output layer (output.ts) passes it through domain/visible-text.ts
 * before it is written. The bridge's own styling (colours, bold) travels as a `ScreenText`, which only
 * this file makes: from the `shown` template, whose literal parts are the CLI's source and whose values
 * are marked visible unless they are `ScreenText` already, or from the output's colours (`paletteOf`),
 * which mark what they colour. Putting a `ScreenText` into a plain template string throws, so styling
 * cannot be glued to agent text around the output layer.
 */
import type pc from 'picocolors';
import { visible } from '../../domain/visible-text.js';

const TRUSTED = Symbol('screen text');

export class ScreenText {
  private constructor(
    token: symbol,
    /** The text exactly as it goes to the terminal: its own escape codes, agent text already marked. */
    readonly raw: string,
  ) {
    if (token !== TRUSTED) throw new Error('ScreenText is made by shown`…` or an output colour only');
  }

  /** @internal this file only. */
  static [TRUSTED](raw: string): ScreenText {
    return new ScreenText(TRUSTED, raw);
  }

  toString(): string {
    throw new Error('a ScreenText was put into a plain string: build the line with shown`…` instead');
  }

  [Symbol.toPrimitive](): string {
    return this.toString();
  }
}

const make = (raw: string): ScreenText => ScreenText[TRUSTED](raw);

/** Anything a line may show: values that are not `ScreenText` are shown as visible text. */
export type Shown = ScreenText | string | number | boolean | null | undefined;

/** The terminal form of one value: a `ScreenText` as it is, anything else marked visible. */
export function screenForm(value: Shown): string {
  return value instanceof ScreenText ? value.raw : visible(String(value));
}

/** A line built from the CLI's own literal text and values (which are marked visible unless `ScreenText`). */
export function shown(strings: TemplateStringsArray, ...values: Shown[]): ScreenText {
  // Only a tagged template's literal parts are the CLI's own source: an array built at run time is not.
  if (!Object.isFrozen(strings) || !Array.isArray(strings.raw)) throw new Error('shown is a template tag: shown`…`');
  let raw = strings[0] ?? '';
  values.forEach((value, i) => {
    raw += screenForm(value) + (strings[i + 1] ?? '');
  });
  return make(raw);
}

/** A field that must stay on one line (a command, a title): its line breaks and tabs are shown too. */
export function oneLine(text: string): ScreenText {
  return make(visible(text, 'one-line'));
}

/** The lines `shown` and `paint` make joined with `separator`. */
export function joined(parts: readonly Shown[], separator: string): ScreenText {
  return make(parts.map(screenForm).join(separator));
}

type Colors = ReturnType<typeof pc.createColors>;
export type ColorName = Exclude<keyof Colors, 'isColorSupported'>;
/** Colours the way picocolors does, on text marked visible first. */
export type Paint = (text: Shown) => ScreenText;
export type Palette = Record<ColorName, Paint> & { readonly isColorSupported: boolean };

export function paletteOf(colors: Colors): Palette {
  const palette: Record<string, unknown> = { isColorSupported: colors.isColorSupported };
  for (const [name, format] of Object.entries(colors)) {
    if (typeof format === 'function') palette[name] = (text: Shown) => make(format(screenForm(text)));
  }
  return palette as Palette;
}

/** Visible width of what `raw` draws: the bridge's own colour codes take no room. */
export function widthOf(value: Shown): number {
  return screenForm(value).replace(/\x1b\[[0-9;]*m/g, '').length;
}
