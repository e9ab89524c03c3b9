/**
 * The audit log on a real data dir: entries for task life events, refused requests capped per minute
 * with a summary, rotation by size, redaction, and the audited store seeing every creation.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../main/audit/audit-log.js';
import { AuditedTaskStore } from '../../main/audit/audited-store.js';
import { statusUpdate } from '../../main/domain/events.js';
import { agentMessage, type Task } from '../../main/domain/task.js';
import { readAuditTail } from '../../main/cli/commands/audit.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { makeTask } from '../stores/make-task.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-audit-'));
});
afterEach(() => {
  // Closed before removal: Windows refuses to remove a folder while a file in it is open.
  for (const log of opened) log.close();
  opened = [];
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = 'tok_abcdefghijklmnopqrstuvwxyz0123456789';
/** Every log a test opened: their buffered lines are written before a test reads the files. */
let opened: AuditLog[] = [];
const openAudit = (opts: ConstructorParameters<typeof AuditLog>[0]) => {
  const log = new AuditLog(opts);
  opened.push(log);
  return log;
};
const flushAll = () => opened.forEach((log) => log.flush());
const auditDir = () => path.join(dir, 'audit');
const lines = (file = path.join(auditDir(), 'audit.jsonl')) =>
  (flushAll(), readFileSync(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function finished(task: Task, state: Task['status']['state'], text: string, seq: number) {
  const status = {
    state,
    timestamp: new Date().toISOString(),
    message: agentMessage('m', text, { taskId: task.id, contextId: task.contextId }),
  };
  return { event: statusUpdate(task, seq, status, true), task: { ...task, status } };
}

describe('AuditLog', () => {
  it('writes one entry per created, answered, auto-decided, failed, canceled and rejected task', () => {
    const audit = openAudit({ dir: auditDir(), secrets: () => [TOKEN] });
    const store = new AuditedTaskStore(new InMemoryTaskStore(), audit);
    const task = makeTask({ agent: 'codex' });
    store.create(task, [], { scope: 'codex', messageId: 'm-1', payloadHash: 'h' });
    store.create(makeTask(), [], { scope: 'codex', messageId: 'm-1', payloadHash: 'h' }); // a replay: no entry
    const at = (seq: number, metadata: Record<string, unknown>) =>
      statusUpdate(task, seq, task.status, false, metadata);
    audit.publish(at(1, { event: 'progress' }), task);
    audit.publish(
      at(2, { event: 'pending-answered', pendingKind: 'permission', by: 'alice', answer: 'allow-once' }),
      task,
    );
    audit.publish(
      at(3, { event: 'pending-auto-decided', pendingKind: 'permission', by: 'rule 0', answer: 'allow-once' }),
      task,
    );
    for (const [i, state] of (['failed', 'canceled', 'rejected', 'completed'] as const).entries()) {
      const f = finished(task, state, `${state} because reasons`, 4 + i);
      audit.publish(f.event, f.task);
    }
    audit.close();
    const entries = lines();
    expect(entries.map((e) => e.type)).toEqual([
      'task.created',
      'task.answered',
      'task.auto-decided',
      'task.failed',
      'task.canceled',
      'task.rejected',
      'task.completed',
    ]);
    expect(entries[0]).toMatchObject({
      taskId: task.id,
      agent: 'codex',
      messageId: task.history[0]!.messageId,
      state: 'submitted',
    });
    expect(entries[1]).toMatchObject({ by: 'alice', answer: 'allow-once', pendingKind: 'permission' });
    expect(entries[2]).toMatchObject({ rule: 'rule 0' });
    expect(entries[3]).toMatchObject({ reason: 'failed because reasons', retryable: false });
    for (const e of entries) expect(Date.parse(String(e.at))).not.toBeNaN();
  });

  it('starts each line with the instant of its own entry, also when entries of one millisecond share it', () => {
    let now = Date.parse('2025-01-01T00:00:00.000Z');
    const audit = openAudit({ dir: auditDir(), secrets: () => [], now: () => now });
    audit.refused('not-json', { status: 415, path: '/a' });
    audit.refused('not-json', { status: 415, path: '/b' });
    now += 1;
    audit.refused('not-json', { status: 415, path: '/c' });
    now += 60_000;
    audit.refused('not-json', { status: 415, path: '/d' });
    flushAll();
    const raw = readFileSync(path.join(auditDir(), 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(raw.every((line) => line.startsWith('{"at":"2025-01-01T00:0'))).toBe(true);
    expect(lines().map((e) => [e.at, e.path, e.type])).toEqual([
      ['2025-01-01T00:00:00.000Z', '/a', 'request.refused'],
      ['2025-01-01T00:00:00.000Z', '/b', 'request.refused'],
      ['2025-01-01T00:00:00.001Z', '/c', 'request.refused'],
      ['2025-01-01T00:01:00.001Z', '/d', 'request.refused'],
    ]);
  });

  it('redacts the bridge token and credential-shaped strings from every entry', () => {
    const audit = openAudit({ dir: auditDir(), secrets: () => [TOKEN] });
    const task = makeTask();
    task.history[0]!.parts = [{ kind: 'text', text: `use ${TOKEN} and sk-ant-abcdefghijklmnopqrstuvwx` }];
    audit.taskCreated(task);
    audit.refused('unauthorized', {
      status: 401,
      path: '/',
      host: `x${TOKEN}`,
      origin: 'Bearer abcdefghijklmnopqrstuvwxyz',
    });
    flushAll();
    const text = readFileSync(path.join(auditDir(), 'audit.jsonl'), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('sk-ant-abcdefghijklmnopqrstuvwx');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(text).toContain('[REDACTED]');
  });

  it('caps refused requests per minute and writes one summary for the rest', () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const audit = openAudit({ dir: auditDir(), secrets: () => [], refusedPerMinute: 5, now: () => now });
    for (let i = 0; i < 1000; i += 1)
      audit.refused('host-not-allowed', { status: 421, path: '/', host: 'evil.example:8791' });
    expect(lines()).toHaveLength(5);
    now += 61_000;
    audit.refused('unauthorized', { status: 401, path: '/' });
    audit.close();
    const entries = lines();
    expect(entries.map((e) => e.type)).toEqual([
      ...Array(5).fill('request.refused'),
      'request.refused-suppressed',
      'request.refused',
    ]);
    expect(entries[5]).toMatchObject({ count: 995 });
    expect(entries[0]).toMatchObject({ reason: 'host-not-allowed', status: 421, host: 'evil.example:8791' });
  });

  it('writes the suppressed summary on close when no later refusal comes', () => {
    const audit = openAudit({ dir: auditDir(), secrets: () => [], refusedPerMinute: 1 });
    audit.refused('not-json', { status: 415, path: '/' });
    audit.refused('not-json', { status: 415, path: '/' });
    audit.close();
    audit.refused('not-json', { status: 415, path: '/' }); // after close: nothing
    expect(lines().map((e) => [e.type, e.count])).toEqual([
      ['request.refused', undefined],
      ['request.refused-suppressed', 1],
    ]);
  });

  it('rotates by size, keeping a bounded number of files, and the CLI reads across them', () => {
    const audit = openAudit({ dir: auditDir(), secrets: () => [], maxFileBytes: 2000, keepFiles: 2 });
    const task = makeTask();
    for (let i = 0; i < 200; i += 1) audit.taskCreated({ ...task, id: `task-${i}` });
    const file = path.join(auditDir(), 'audit.jsonl');
    flushAll();
    expect(statSync(file).size).toBeLessThanOrEqual(2000);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(existsSync(`${file}.2`)).toBe(true);
    expect(existsSync(`${file}.3`)).toBe(false);
    const ids = [file, `${file}.1`, `${file}.2`].flatMap((f) => lines(f).map((e) => e.taskId));
    expect(ids).toContain('task-199');
    expect(ids).not.toContain('task-0');
    const tail = readAuditTail(dir, 12);
    expect(tail.map((e) => e.taskId)).toEqual(Array.from({ length: 12 }, (_, i) => `task-${188 + i}`));
  });

  it('never throws into the bridge when the file cannot be written', () => {
    const errors: unknown[] = [];
    const audit = openAudit({ dir: auditDir(), secrets: () => [], onError: (err) => errors.push(err) });
    mkdirSync(path.join(auditDir(), 'audit.jsonl')); // a folder where the file should be: even root cannot append
    expect(() => audit.taskCreated(makeTask())).not.toThrow();
    expect(() => audit.refused('not-json', { status: 415, path: '/' })).not.toThrow();
    expect(() => audit.flush()).not.toThrow();
    expect(errors).toHaveLength(1); // one write per group: one failure reported for both lines
  });

  it('creates its folder and file user-only', () => {
    const audit = openAudit({ dir: auditDir(), secrets: () => [] });
    audit.taskCreated(makeTask());
    if (process.platform === 'win32') return;
    flushAll();
    expect(statSync(auditDir()).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(auditDir(), 'audit.jsonl')).mode & 0o777).toBe(0o600);
  });
});
