/**
 * The writer thread alone (main/stores/worker/writer-thread.ts): a group built before its sender heard of
 * a lost one is refused, so nothing is stored on top of a write that never was.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../../../main/stores/open-database.js';
import { WriterThread, type WriteGroup, type WriterReply } from '../../../main/stores/worker/writer-thread.js';

let dir: string;
let file: string;
let writer: WriterThread;
const replies: WriterReply[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contactor-writer-'));
  file = join(dir, 'tasks.db');
  openDatabase(file).close();
  replies.length = 0;
  writer = new WriterThread(
    file,
    (reply) => replies.push(reply),
    () => undefined,
  );
});
afterEach(() => {
  writer.stop();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string) => [id, 'ctx', 'claude', 'working', 't0', 't0', 2, null, null, null, '{}', null];
const group = (gen: number, losses: number, inserts: unknown[], events: unknown[] = []): WriteGroup => ({
  kind: 'write',
  gen,
  losses,
  inserts,
  updates: [],
  events,
});
const answer = (count: number) =>
  writer.waitUntil(
    () => replies.length >= count,
    (reply) => replies.push(reply),
  );

it('refuses a group built on a lost one, and takes the next group built after the loss was heard', () => {
  // An event for a task that does not exist: the foreign key fails the group, as a full disk would.
  writer.post(group(1, 0, [], ['no-such-task', 3, '{}']));
  answer(1);
  expect(replies[0]).toMatchObject({ kind: 'written', gens: [1], lost: expect.stringMatching(/FOREIGN KEY/) });
  writer.post(group(2, 0, row('built-on-the-lost-group')));
  answer(2);
  expect(replies[1]).toMatchObject({ kind: 'written', gens: [2], lost: expect.stringMatching(/earlier group/) });
  writer.post(group(3, 2, row('after-the-loss')));
  answer(3);
  expect(replies[2]).toEqual({ kind: 'written', gens: [3] });
  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare('SELECT id FROM tasks').pluck().all()).toEqual(['after-the-loss']);
  } finally {
    db.close();
  }
});
