/**
 * Where the CLI writes. With `--json`, stdout carries exactly one JSON document (docs/contract.md#cli), so
 * human lines go to stderr then; colours only on a TTY and never with NO_COLOR.
 */
import pc from 'picocolors';

type Colors = ReturnType<typeof pc.createColors>;

export interface OutputStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

export class Output {
  /** Colours for stdout and for stderr; each follows its own stream's TTY-ness. */
  readonly c: Colors;
  readonly ce: Colors;
  private documents = 0;

  constructor(
    readonly json: boolean,
    private readonly io: OutputStreams = { stdout: process.stdout, stderr: process.stderr, env: process.env },
  ) {
    const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
    this.c = pc.createColors(!noColor && !json && io.stdout.isTTY === true);
    this.ce = pc.createColors(!noColor && io.stderr.isTTY === true);
  }

  /** stderr is a terminal: live progress is worth drawing. */
  get interactive(): boolean {
    return this.io.stderr.isTTY === true;
  }

  /** A line of the human-readable result. */
  line(text = ''): void {
    (this.json ? this.io.stderr : this.io.stdout).write(`${text}\n`);
  }

  /** Raw result text (an agent's reply), newline-terminated. */
  text(text: string): void {
    if (text === '') return;
    (this.json ? this.io.stderr : this.io.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Partial text as it streams in (no newline added). */
  chunk(text: string): void {
    (this.json ? this.io.stderr : this.io.stdout).write(text);
  }

  /** Notes, progress and hints: never part of the result. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  progress(text: string): void {
    this.io.stderr.write(text);
  }

  error(message: string): void {
    this.io.stderr.write(`${this.ce.red('contactor:')} ${message}\n`);
  }

  /** The one JSON document of a `--json` run. */
  doc(value: unknown): void {
    this.documents += 1;
    if (this.documents > 1) throw new Error('a --json run printed two documents');
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  get printedDocument(): boolean {
    return this.documents > 0;
  }
}
