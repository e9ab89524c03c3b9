/**
 * How the bridge's logs stay bounded on disk, the one way for all of them (the audit log, each agent's
 * log, bridge.log, serve.log): past a size the file becomes `<file>.1`, `.1` becomes `.2`, and so on, and the
 * oldest past `keep` is dropped. Opening the file stays the caller's (platform/protected-files.ts
 * `openOwnFileForAppend`), so a rotated log is reopened the same way it was first opened.
 */
import { closeSync, lstatSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';

/** Shifts `<file>` → `.1` → … → `.<keep>` (the oldest dropped). A generation missing is skipped. */
export function rotateGenerations(file: string, keep: number): void {
  rmSync(`${file}.${keep}`, { force: true });
  for (let i = keep - 1; i >= 1; i -= 1) renameQuiet(`${file}.${i}`, `${file}.${i + 1}`);
  renameQuiet(file, `${file}.1`);
}

/**
 * Rotates `file` now when it is larger than `maxBytes` (a log appended to across starts, checked at each).
 * A rotation that fails leaves the files as they are: a log too long never stops a start.
 */
export function rotateIfOver(file: string, maxBytes: number, keep: number): void {
  try {
    if (lstatSync(file).size > maxBytes) rotateGenerations(file, keep);
  } catch {
    // no log yet, or a generation that cannot be moved
  }
}

export interface RotatingFileOptions {
  file: string;
  maxBytes: number;
  keep: number;
  /** Opens `file` for appending, returning its descriptor: the caller's one way of opening its own files. */
  open: (file: string) => number;
}

/**
 * A file appended to synchronously that rotates itself past `maxBytes`: a writable destination for a
 * logger that lives as long as the process (a tray app runs for months).
 */
export class RotatingFile {
  private fd: number | undefined;
  private size: number;
  private closed = false;

  constructor(private readonly opts: RotatingFileOptions) {
    this.fd = opts.open(opts.file);
    this.size = sizeOf(opts.file);
  }

  write(text: string): boolean {
    // Closed, or the reopen after a rotation was refused (a link planted where the log goes): the line is
    // dropped, as the agents' logs drop theirs, rather than stop the bridge; a later write tries again.
    if (this.fd === undefined && !this.closed) this.fd = this.tryOpen();
    if (this.fd === undefined) return false;
    const bytes = Buffer.from(text, 'utf8');
    writeSync(this.fd, bytes);
    this.size += bytes.length;
    if (this.size > this.opts.maxBytes) this.rotate();
    return true;
  }

  close(): void {
    this.closed = true;
    this.release();
  }

  private release(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private rotate(): void {
    this.release();
    this.size = 0;
    try {
      rotateGenerations(this.opts.file, this.opts.keep);
    } catch {
      // left as it is (a rotated file held open elsewhere on Windows): the next rotation tries again
    }
    this.fd = this.tryOpen();
  }

  private tryOpen(): number | undefined {
    try {
      const fd = this.opts.open(this.opts.file);
      this.size = sizeOf(this.opts.file);
      return fd;
    } catch {
      return undefined;
    }
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function renameQuiet(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
