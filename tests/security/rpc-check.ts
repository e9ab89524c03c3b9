/**
 * What "answers valid JSON-RPC" means, checked on raw HTTP responses, and what "the store stays
 * consistent" means, checked on the SQLite file itself after the bridge stopped.
 */
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { TASK_STATES, type Task } from '../../main/domain/task.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function expectRpcResponse(body: any, context: string): void {
  expect(body, context).toBeTypeOf('object');
  expect(body, context).not.toBeNull();
  expect(body.jsonrpc, context).toBe('2.0');
  expect('id' in body, `${context}: no id`).toBe(true);
  expect(
    ['string', 'number'].includes(typeof body.id) || body.id === null,
    `${context}: bad id ${JSON.stringify(body.id)}`,
  ).toBe(true);
  expect('result' in body !== 'error' in body, `${context}: needs exactly one of result and error`).toBe(true);
  if ('error' in body) {
    expect(Number.isInteger(body.error.code), context).toBe(true);
    expect(body.error.message, context).toBeTypeOf('string');
  }
}

export interface StoreFigures {
  tasks: number;
  events: number;
}

/** Every row parses, its columns match its JSON, its state is a known one, and its events run 1..lastSeq in order. */
export function expectConsistentStore(file: string): StoreFigures {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    const rows = db.prepare('SELECT id, state, agent, last_seq, task_json FROM tasks').all() as {
      id: string;
      state: string;
      agent: string;
      last_seq: number;
      task_json: string;
    }[];
    const events = db.prepare('SELECT seq, event_json FROM events WHERE task_id = ? ORDER BY seq');
    let eventCount = 0;
    for (const row of rows) {
      const task = JSON.parse(row.task_json) as Task;
      expect(task.id).toBe(row.id);
      expect(task.status.state).toBe(row.state);
      expect(TASK_STATES).toContain(row.state);
      expect(task.metadata.requiresReview).toBe(true);
      const seqs = (events.all(row.id) as { seq: number; event_json: string }[]).map((e) => {
        expect((JSON.parse(e.event_json) as { seq: number }).seq).toBe(e.seq);
        return e.seq;
      });
      eventCount += seqs.length;
      seqs.forEach((seq, i) => i > 0 && expect(seq).toBeGreaterThan(seqs[i - 1]!));
      expect(seqs.at(-1) ?? 0, `task ${row.id}: events end at the stored lastSeq`).toBe(row.last_seq);
    }
    return { tasks: rows.length, events: eventCount };
  } finally {
    db.close();
  }
}
