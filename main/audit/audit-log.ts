/**
 * The audit log: JSON lines in `<data_dir>/audit/audit.jsonl`, one per task created, question asked,
 * answered, auto-decided or expired, task finished, failed, canceled or rejected, and per request the
 * bridge refused. Credential-shaped strings and the bridge token are redacted from every string that
 * came from outside the bridge, once, as the entry is made (audit-entries.ts; header values here).
 *
 * Written with the group commit: the lines of one group (the store's commit callbacks tell the log, see
 * `publish`) go out in one write, in a microtask queued by the group's first line. A microtask queued
 * then runs before anything queued after it — the response that reports the task, which waits on a
 * promise the same commit resolves after telling the log — so no line of a task the bridge confirmed
 * is still in memory when the confirmation leaves (kill -9 loses nothing written to the file).
 *
 * Bounded on disk: the file rotates by size (audit.jsonl → .1 → .2 ...), and refused requests are capped
 * per minute with one "suppressed K" entry for the rest, so a flood of bad requests cannot fill the disk
 * or push the task entries out of the kept files.
 */
import { closeSync, mkdirSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createdEntry, eventEntry, type AuditRecord, type Cleaner } from './audit-entries.js';
import type { TaskEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import { redact, redactDeep } from './logging.js';
import type { EventSink } from '../ports.js';
import { rotateGenerations } from '../platform/log-rotation.js';
import { openOwnFileForAppend } from '../platform/protected-files.js';

export const AUDIT_FILE = 'audit.jsonl';

export interface AuditLogOptions {
  /** `<data_dir>/audit`; created user-only when missing. */
  dir: string;
  /** Exact values never to write (the bridge token), read at each write so a rotated token is covered. */
  secrets: () => readonly string[];
  /** Size at which the file rotates (default 5 MiB). */
  maxFileBytes?: number;
  /** Rotated files kept besides the current one (default 3, at least 1). */
  keepFiles?: number;
  /** Refused requests written per minute; the rest are counted in one summary entry (default 30). */
  refusedPerMinute?: number;
  /** Where a failed write is reported (the audit log never throws into the bridge). */
  onError?: (err: unknown) => void;
  now?: () => number;
}

export interface RefusalDetails {
  status: number;
  path: string;
  method?: string;
  remote?: string;
  host?: string;
  origin?: string;
  caller?: string;
}

const WINDOW_MS = 60_000;
/** Header values come from whoever sent the request: kept short. */
const HEADER_CHARS = 200;

export class AuditLog implements EventSink {
  readonly file: string;
  private size: number;
  private windowStart = 0;
  private windowCount = 0;
  private suppressed = 0;
  private suppressedTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Lines of this group, written together: one write per group, not one per entry. */
  private pending: string[] = [];
  private flushScheduled = false;
  private lastInstant = { ms: Number.NaN, iso: '' };
  private fd: number | undefined;
  private readonly maxFileBytes: number;
  private readonly keepFiles: number;
  private readonly refusedPerMinute: number;
  private readonly now: () => number;
  /** Read per entry, not kept: a rotated token is covered from its first entry. */
  private readonly clean: Cleaner = {
    text: (text) => redact(text, this.opts.secrets()),
    value: (value) => redactDeep(value, this.opts.secrets()),
  };

  constructor(private readonly opts: AuditLogOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.file = path.join(opts.dir, AUDIT_FILE);
    this.size = Math.max(0, sizeOf(this.file));
    this.maxFileBytes = opts.maxFileBytes ?? 5 * 1024 * 1024;
    this.keepFiles = Math.max(1, opts.keepFiles ?? 3);
    this.refusedPerMinute = opts.refusedPerMinute ?? 30;
    this.now = opts.now ?? Date.now;
  }

  /** EventSink: task events after they are stored. */
  publish(event: TaskEvent, task: Task): void {
    const entry = eventEntry(event, task, this.clean);
    if (entry) this.write(entry);
  }

  /** A new task was stored (called by the audited store, so loop-guard rejections are seen too). */
  taskCreated(task: Task): void {
    this.write(createdEntry(task, this.clean));
  }

  /** A request refused before dispatch (gate, token, rate limit, body), with why. */
  refused(reason: string, details: RefusalDetails): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.flushSuppressed();
      this.windowStart = now;
      this.windowCount = 0;
    }
    if (this.windowCount < this.refusedPerMinute) {
      this.windowCount += 1;
      this.write({ type: 'request.refused', reason, ...trimmed(details, this.clean) });
      return;
    }
    this.suppressed += 1;
    if (!this.suppressedTimer) {
      this.suppressedTimer = setTimeout(() => this.flushSuppressed(), Math.max(0, this.windowStart + WINDOW_MS - now));
      this.suppressedTimer.unref();
    }
  }

  /** Writes the pending "suppressed" summary and every buffered line; later calls write nothing. */
  close(): void {
    this.flushSuppressed();
    this.flush();
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Writes the buffered lines now (also runs by itself, see the top): all of them in one write, or one
   * per file when the size limit falls among them (the file rotates between the writes).
   */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    try {
      let chunk = '';
      let chunkBytes = 0;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (this.size + chunkBytes > 0 && this.size + chunkBytes + bytes > this.maxFileBytes) {
          this.append(chunk, chunkBytes);
          if (this.size > 0) this.rotate();
          chunk = '';
          chunkBytes = 0;
        }
        chunk += line;
        chunkBytes += bytes;
      }
      this.append(chunk, chunkBytes);
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private append(text: string, bytes: number): void {
    if (bytes === 0) return;
    // `dir` is `<data_dir>/audit`: never written through a link an agent planted there (SECURITY.md#threat-model).
    this.fd ??= openOwnFileForAppend(path.dirname(this.opts.dir), this.file);
    writeSync(this.fd, text);
    this.size += bytes;
  }

  private flushSuppressed(): void {
    if (this.suppressedTimer) clearTimeout(this.suppressedTimer);
    this.suppressedTimer = undefined;
    if (this.suppressed === 0) return;
    const count = this.suppressed;
    this.suppressed = 0;
    this.write({
      type: 'request.refused-suppressed',
      count,
      since: new Date(this.windowStart).toISOString(),
      note: `${count} more refused requests in this minute were not written one by one`,
    });
  }

  /**
   * `record`'s outside strings are clean already (audit-entries.ts, `trimmed`). The line is the instant,
   * then the record's own JSON (it always has a `type`), so the record is stringified as it is, not copied.
   */
  private write(record: AuditRecord): void {
    if (this.closed) return;
    try {
      this.pending.push(`{"at":"${this.instant()}",${JSON.stringify(record).slice(1)}\n`);
    } catch (err) {
      this.opts.onError?.(err);
      return;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /**
   * The ISO text of now, made once per millisecond: formatting a Date costs about as much as stringifying
   * the entry, and a group's lines mostly share their millisecond (docs/benchmark.md#the-http-edge).
   */
  private instant(): string {
    const now = this.now();
    if (now !== this.lastInstant.ms) this.lastInstant = { ms: now, iso: new Date(now).toISOString() };
    return this.lastInstant.iso;
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rotateGenerations(this.file, this.keepFiles);
    this.size = 0;
  }
}

/** What the request sent (its path and headers), redacted whole, then cut to HEADER_CHARS. */
function trimmed(details: RefusalDetails, clean: Cleaner): RefusalDetails {
  const cut = (v: string | undefined) => (v === undefined ? undefined : clean.text(v).slice(0, HEADER_CHARS));
  return Object.fromEntries(
    Object.entries({
      ...details,
      method: cut(details.method),
      path: cut(details.path),
      remote: cut(details.remote),
      host: cut(details.host),
      origin: cut(details.origin),
      caller: cut(details.caller),
    }).filter(([, v]) => v !== undefined),
  ) as unknown as RefusalDetails;
}

/** -1 when the file does not exist. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}
