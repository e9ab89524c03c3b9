import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatAuditEntry, readAuditTail } from '../../main/cli/commands/audit.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'contactor-cli-audit-'));
  mkdirSync(path.join(dataDir, 'audit'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const entry = (n: number) =>
  JSON.stringify({
    at: `2025-01-01T00:00:${String(n).padStart(2, '0')}.000Z`,
    type: 'task.created',
    taskId: `t${n}`,
    agent: 'echo',
  });

describe('contactor audit', () => {
  it('reads the newest entries oldest first, across a rotated file, skipping torn lines', () => {
    const file = path.join(dataDir, 'audit', 'audit.jsonl');
    writeFileSync(`${file}.1`, [1, 2, 3].map(entry).join('\n') + '\n');
    writeFileSync(file, [entry(4), '{"at":"2025-01-01T00:00:05.000Z","ty', entry(6)].join('\n') + '\n');
    expect(readAuditTail(dataDir, 4).map((e) => e.taskId)).toEqual(['t2', 't3', 't4', 't6']);
    expect(readAuditTail(dataDir, 100).map((e) => e.taskId)).toEqual(['t1', 't2', 't3', 't4', 't6']);
  });

  it('gives nothing when there is no audit file yet', () => {
    expect(readAuditTail(path.join(dataDir, 'elsewhere'), 5)).toEqual([]);
  });

  it('formats an entry as one line with its facts', () => {
    const line = formatAuditEntry({
      at: '2025-01-01T00:00:00.000Z',
      type: 'task.failed',
      taskId: 't1',
      agent: 'codex',
      contextId: 'c',
      reason: 'exited with code 2\nstack',
      retryable: false,
    });
    expect(line).toContain('task.failed');
    expect(line).toContain('codex t1');
    expect(line).toContain('reason="exited with code 2 stack"');
    expect(line).toContain('retryable=false');
    expect(line).not.toContain('\n');
    expect(line).not.toContain('contextId');
  });
});
