/**
 * 1,000 sends at once across five agents: none lost (each gets a task that completes), none duplicated
 * (each messageId runs exactly once, also when replayed), and each agent runs its tasks in the order the
 * bridge accepted them (the store's insertion order), as the fixture's run log shows.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { pollUntil } from '../helpers/wait.js';
import { SECURITY_FIXTURES } from './attack-agents.js';

const AGENTS = ['a1', 'a2', 'a3', 'a4', 'a5'];
const SENDS = Number(process.env.CONTACTOR_LOAD_SENDS ?? 1000);
let tb: TestBridge;
let runLog: string;

beforeAll(async () => {
  const dir = tempDir();
  runLog = path.join(dir, 'runs.log');
  const agent = {
    kind: 'subprocess_cli',
    command: ['/bin/sh', path.join(SECURITY_FIXTURES, 'record-run.sh')],
    append_decision_contract: false,
    env: { RUN_LOG: runLog },
    max_queue: SENDS,
  };
  tb = await startTestBridge({
    dir,
    isolatedEnv: true,
    agents: Object.fromEntries(AGENTS.map((a) => [a, agent])),
    config: { rate_limit_per_minute: SENDS * 10 },
  });
});
afterAll(async () => {
  await tb?.cleanup();
});

/** node:http with a bounded socket pool: all requests are issued at once and queue on the client side. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function post(pool: Agent, body: unknown): Promise<any> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${tb.url}/`,
      {
        method: 'POST',
        agent: pool,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tb.token}`,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const send = (agent: string, i: number) => ({
  jsonrpc: '2.0',
  id: i,
  method: 'message/send',
  params: { agent, text: `job ${i}`, messageId: `${agent}-m${i}`, configuration: { blocking: false } },
});

describe.skipIf(process.platform === 'win32')(`${SENDS} concurrent sends`, () => {
  it('loses none, duplicates none, and keeps each agent in order', async () => {
    const pool = new Agent({ keepAlive: true, maxSockets: 64 });
    try {
      const jobs = Array.from({ length: SENDS }, (_, i) => ({ agent: AGENTS[i % AGENTS.length]!, i }));
      const replies = await Promise.all(jobs.map((j) => post(pool, send(j.agent, j.i))));
      const errors = replies.filter((r) => r.error);
      expect(errors).toEqual([]);
      const taskIds = replies.map((r) => r.result.id as string);
      expect(new Set(taskIds).size).toBe(SENDS);

      await pollUntil(
        () => tb.rpc('tasks/list', { states: ['submitted', 'working'], pageSize: 1 }),
        (open) => open.result.totalSize === 0,
        'every task to finish',
      );
      const done = await tb.rpc('tasks/list', { states: ['completed'], pageSize: 1 });
      expect(done.result.totalSize).toBe(SENDS);

      // A replay of every tenth message returns the same task and runs nothing again.
      const replays = await Promise.all(jobs.filter((j) => j.i % 10 === 0).map((j) => post(pool, send(j.agent, j.i))));
      expect(replays.map((r) => r.result.id)).toEqual(jobs.filter((j) => j.i % 10 === 0).map((j) => taskIds[j.i]));

      const runs = readFileSync(runLog, 'utf8').trim().split('\n');
      expect(runs.filter((l) => l.startsWith('OVERLAP'))).toEqual([]);
      expect(runs).toHaveLength(SENDS);
      expect(new Set(runs).size).toBe(SENDS);

      await tb.stop();
      const db = new Database(path.join(tb.dataDir, 'contactor.db'), { readonly: true });
      try {
        for (const agent of AGENTS) {
          const accepted = (
            db.prepare('SELECT message_id FROM tasks WHERE agent = ? ORDER BY rowid').all(agent) as {
              message_id: string;
            }[]
          ).map((r) => r.message_id);
          const ran = runs.filter((l) => l.startsWith(`${agent} `)).map((l) => l.slice(agent.length + 1));
          expect(ran).toEqual(accepted);
        }
      } finally {
        db.close();
      }
      const audit = readFileSync(path.join(tb.dataDir, 'audit', 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type);
      expect(audit.filter((t) => t === 'task.created')).toHaveLength(SENDS);
      expect(audit.filter((t) => t === 'task.completed')).toHaveLength(SENDS);
      console.info(
        `load figures: ${JSON.stringify({ sends: SENDS, agents: AGENTS.length, tasksChecked: SENDS, replays: replays.length, lost: 0, duplicated: 0 })}`,
      );
    } finally {
      pool.destroy();
    }
  }, 240_000);
});
