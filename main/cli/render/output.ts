/**
 * Where the CLI writes. With `--json`, stdout carries exactly one JSON document (docs/contract.md#cli), so
 * human lines go to stderr then; colours only on a TTY and never with NO_COLOR.
 *
 * The one writer of the CLI's stdout and stderr (SECURITY.md#what-a-person-reads): every string a verb
 * hands it is marked visible (domain/visible-text.ts) as it is written, so an agent's text can never drive
 * the terminal; only the CLI's own styling, made as `ScreenText` (screen-text.ts), passes as it is.
 */
import pc from 'picocolors';
import { paletteOf, screenForm, shown, type Palette, type Shown } from './screen-text.js';

export interface OutputStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/**
 * What JSON.stringify leaves raw but a terminal acts on or hides (C1 controls, format characters, U+2028/9,
 * the other characters drawn as nothing: domain/visible-text.ts),
 * as `\uXXXX` escapes: the same JSON document, safe to print.
 */
const JSON_HIDDEN = /[\u007f-\u009f\u2028\u2029\p{Cf}]|(?![\uFE0E\uFE0F])\p{Default_Ignorable_Code_Point}/gu;

export class Output {
  /** Colours for stdout and for stderr; each follows its own stream's TTY-ness. */
  readonly c: Palette;
  readonly ce: Palette;
  private documents = 0;

  constructor(
    readonly json: boolean,
    private readonly io: OutputStreams = { stdout: process.stdout, stderr: process.stderr, env: process.env },
  ) {
    const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
    this.c = paletteOf(pc.createColors(!noColor && !json && io.stdout.isTTY === true));
    this.ce = paletteOf(pc.createColors(!noColor && io.stderr.isTTY === true));
  }

  /** stderr is a terminal: live progress is worth drawing. */
  get interactive(): boolean {
    return this.io.stderr.isTTY === true;
  }

  /** Both streams are a terminal (and no --json): a reply can stream in as it comes, beside live progress. */
  get live(): boolean {
    return !this.json && this.io.stdout.isTTY === true && this.io.stderr.isTTY === true;
  }

  /** How wide the terminal showing the result is; none when the result goes to a file or a pipe. */
  get columns(): number | undefined {
    const stream = this.resultStream;
    return stream.isTTY === true && stream.columns > 0 ? stream.columns : undefined;
  }

  /** A line of the human-readable result. */
  line(text: Shown = ''): void {
    this.write(this.resultStream, text, '\n');
  }

  /** Raw result text (an agent's reply), newline-terminated. */
  text(text: string): void {
    if (text === '') return;
    this.write(this.resultStream, text, text.endsWith('\n') ? '' : '\n');
  }

  /** Partial text as it streams in (no newline added). */
  chunk(text: Shown): void {
    this.write(this.resultStream, text, '');
  }

  /** Notes, progress and hints: never part of the result. */
  note(text: Shown): void {
    this.write(this.io.stderr, text, '\n');
  }

  progress(text: Shown): void {
    this.write(this.io.stderr, text, '');
  }

  error(message: Shown): void {
    this.write(this.io.stderr, shown`${this.ce.red('contactor:')} ${message}`, '\n');
  }

  /** The one JSON document of a `--json` run. */
  doc(value: unknown): void {
    this.documents += 1;
    if (this.documents > 1) throw new Error('a --json run printed two documents');
    // An astral tag character is two UTF-16 units: each gets its own escape, as JSON spells it.
    const json = JSON.stringify(value, null, 2).replace(JSON_HIDDEN, (ch) =>
      ch
        .split('')
        .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join(''),
    );
    this.io.stdout.write(`${json}\n`);
  }

  get printedDocument(): boolean {
    return this.documents > 0;
  }

  private get resultStream(): NodeJS.WriteStream {
    return this.json ? this.io.stderr : this.io.stdout;
  }

  private write(stream: NodeJS.WriteStream, text: Shown, end: string): void {
    stream.write(screenForm(text) + end);
  }
}
