/**
 * The durable ceiling's audit log: the same lines the product writes to `<data_dir>/audit/audit.jsonl`
 * (audit/audit-log.ts, audit/audit-entries.ts) for what the ceiling serves — task.created, task.completed,
 * request.refused — built by hand. Caller-supplied strings are redacted once, when the line is built (the
 * credential patterns and the token, domain/redaction.ts); the lines of one turn go out in one write.
 * Refused requests are capped per minute like the product's (30, then one "suppressed" line).
 */
import { mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { redact } from '../../../main/domain/redaction.js';

const PREVIEW_CHARS = 200;
const REFUSED_PER_MINUTE = 30;
const HEADER_CHARS = 200;

export interface Refusal {
  reason: string;
  status: number;
  method: string;
  path: string;
  remote: string;
  host?: string | undefined;
  origin?: string | undefined;
  caller?: string | undefined;
}

export class AuditLines {
  private readonly fd: number;
  private pending = '';
  private windowStart = 0;
  private windowCount = 0;
  private suppressed = 0;

  constructor(
    dataDir: string,
    private readonly token: string,
  ) {
    const dir = path.join(dataDir, 'audit');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.fd = openSync(path.join(dir, 'audit.jsonl'), 'a', 0o600);
  }

  /** `text` and `messageId` are the caller's: redacted here, the rest is ours. */
  created(t: { id: string; contextId: string; messageId: string; text: string; depth: number }): void {
    const clean = this.clean(t.text);
    const text = clean.length > PREVIEW_CHARS ? `${clean.slice(0, PREVIEW_CHARS)}…` : clean;
    this.add(
      `"type":"task.created","taskId":"${t.id}","agent":"echo","contextId":${JSON.stringify(t.contextId)},` +
        `"createdBy":"person","messageId":${JSON.stringify(this.clean(t.messageId))},"text":${JSON.stringify(text)},` +
        `"delegationDepth":${t.depth},"visitedAgents":["echo"],"state":"submitted"`,
    );
  }

  completed(t: { id: string; contextId: string }): void {
    this.add(`"type":"task.completed","taskId":"${t.id}","agent":"echo","contextId":${JSON.stringify(t.contextId)}`);
  }

  refused(r: Refusal): void {
    const now = Date.now();
    if (now - this.windowStart >= 60_000) {
      this.flushSuppressed();
      this.windowStart = now;
      this.windowCount = 0;
    }
    if (this.windowCount >= REFUSED_PER_MINUTE) {
      this.suppressed += 1;
      return;
    }
    this.windowCount += 1;
    const header = (name: string, v: string | undefined) =>
      v === undefined ? '' : `,"${name}":${JSON.stringify(this.clean(v.slice(0, HEADER_CHARS)))}`;
    this.add(
      `"type":"request.refused","reason":"${r.reason}","status":${r.status},"method":${JSON.stringify(this.clean(r.method))}` +
        `${header('path', r.path)},"remote":${JSON.stringify(r.remote)}${header('host', r.host)}${header('origin', r.origin)}` +
        `${header('caller', r.caller)}`,
    );
    this.write();
  }

  /** Writes the lines held for this turn: one write. */
  write(): void {
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    writeSync(this.fd, lines);
  }

  close(): void {
    this.flushSuppressed();
    this.write();
  }

  private flushSuppressed(): void {
    if (this.suppressed === 0) return;
    const count = this.suppressed;
    this.suppressed = 0;
    this.add(
      `"type":"request.refused-suppressed","count":${count},"since":"${new Date(this.windowStart).toISOString()}",` +
        `"note":"${count} more refused requests in this minute were not written one by one"`,
    );
  }

  private add(fields: string): void {
    this.pending += `{"at":"${new Date().toISOString()}",${fields}}\n`;
  }

  private clean(text: string): string {
    return redact(text, [this.token]);
  }
}
