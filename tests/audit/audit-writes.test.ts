/**
 * When and how the audit log reaches its file: the lines of one group commit in one write, and every
 * line of a task written before the response that reports the task leaves the bridge (a kill -9 right
 * after a confirmed send must find its lines in the file).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditLog } from '../../main/audit/audit-log.js';
import { statusUpdate } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { makeTask } from '../stores/make-task.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

/** Every writeSync the code under test makes (node:fs as it is, counted). */
const writes = vi.hoisted(() => ({ texts: [] as string[] }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    writes.texts.push(String(data));
    return (fs.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

let dir: string;
let tb: TestBridge | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-audit-writes-'));
  writes.texts = [];
});
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const completed = (task: Task, seq: number) =>
  statusUpdate(task, seq, { state: 'completed', timestamp: new Date().toISOString() }, true);

describe('audit log writes', () => {
  it("writes one group's lines in one write, before anything queued after them runs", async () => {
    const audit = new AuditLog({ dir, secrets: () => [] });
    const tasks = Array.from({ length: 5 }, () => makeTask({ agent: 'echo' }));
    // What a group commit's callbacks do for five tasks: creation and final event of each.
    for (const task of tasks) {
      audit.taskCreated(task);
      audit.publish(completed(task, 1), task);
    }
    await Promise.resolve(); // the next microtask: what a response waiting on the same commit runs in
    const auditWrites = writes.texts.filter((t) => t.includes('"type":"task.'));
    expect(auditWrites).toHaveLength(1);
    expect(auditWrites[0]!.trimEnd().split('\n')).toHaveLength(10);
    expect(readFileSync(audit.file, 'utf8').trimEnd().split('\n')).toHaveLength(10);
    audit.close();
  });

  it(
    "has a blocking send's audit lines in the file when its response arrives",
    async () => {
      tb = await startTestBridge();
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'audit-writes-1',
            role: 'user',
            parts: [{ kind: 'text', text: 'hi' }],
          },
          metadata: { agent: 'echo' },
        },
      });
      const file = path.join(tb.dataDir, 'audit', 'audit.jsonl');
      const url = new URL(tb.url);
      // Read in the response's first callback, synchronously: nothing of the bridge's may run in between.
      const { reply, auditThen } = await new Promise<{ reply: string; auditThen: string }>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/',
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tb!.token}` },
          },
          (res) => {
            const auditThen = readFileSync(file, 'utf8');
            let reply = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (reply += c));
            res.on('end', () => resolve({ reply, auditThen }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      const task = (JSON.parse(reply) as { result: Task }).result;
      expect(task.status.state).toBe('completed');
      const types = auditThen
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; taskId: string })
        .filter((e) => e.taskId === task.id)
        .map((e) => e.type);
      expect(types).toEqual(['task.created', 'task.completed']);
    },
    TEST_TIMEOUT_MS,
  );
});
