/**
 * The benchmark's durable ceiling (bench/servers/durable-ceiling.ts) is only a fair ceiling if it does the
 * product's work: the same answers, the same rows and events in the same database schema, the same audit
 * lines, for the same ten probe requests — sends, a replay, a conflicting replay and each refusal of the
 * edge; and nothing it answered may be lost by a kill -9 under load.
 */
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_DIR, bundleServers, startChild, type RunningChild } from '../../bench/lib/children.js';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';
import { openDatabase } from '../../main/stores/open-database.js';
import { tempDir } from '../helpers/bridge.js';

type Info = { ready: boolean; port: number; token: string };

interface Reply {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

let dir: string;
/** Inside the repository, as `npm run bench` builds them: the bundles load better-sqlite3 from its node_modules. */
let buildDir: string;

beforeAll(async () => {
  dir = tempDir();
  mkdirSync(path.join(BENCH_DIR, 'results'), { recursive: true });
  buildDir = mkdtempSync(path.join(BENCH_DIR, 'results', 'test-build-'));
  await bundleServers(['contactor-echo', 'durable-ceiling'], buildDir);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
});

function start(name: string, dataDir: string, env: Record<string, string> = {}): Promise<RunningChild<Info>> {
  return startChild<Info>(path.join(buildDir, `${name}.mjs`), [dataDir], {
    nodeFlags: HEADLESS_NODE_FLAGS,
    env,
    timeoutMs: 60_000,
  });
}

function post(port: number, body: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/agents/echo',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: {
              'content-type': res.headers['content-type'],
              'www-authenticate': res.headers['www-authenticate'],
              'retry-after': res.headers['retry-after'],
            },
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const send = (messageId: string, text: string, extra: Record<string, unknown> = {}, id: unknown = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'message/send',
    params: { message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text }], ...extra } },
  });

function nested(levels: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < levels; i++) v = { v };
  return v;
}

/** The ten probes, in order; each with the headers it is sent with (beside the token, unless it says). */
function probes(port: number): { body: string; headers: Record<string, string>; noToken?: boolean }[] {
  return [
    { body: send('probe-1', 'hello'), headers: {} },
    { body: send('probe-2', 'with a context sk-abcdefghijklmnop0123', { contextId: 'ctx-probe' }, 'two'), headers: {} },
    { body: send('probe-1', 'hello', {}, 3), headers: {} }, // replay: the same task back
    { body: send('probe-1', 'not hello', {}, 4), headers: {} }, // the same messageId, another payload
    { body: send('probe-5', 'no token'), headers: {}, noToken: true },
    { body: send('probe-6', 'wrong host'), headers: { host: `evil.example:${port}` } },
    { body: send('probe-7', 'from a web page'), headers: { origin: 'https://evil.example' } },
    { body: send('probe-8', 'x'.repeat(1024 * 1024)), headers: {} }, // over the 1 MiB body limit
    { body: send('probe-9', 'deep', { metadata: nested(70) }, 9), headers: {} },
    // A batch worth more than a whole minute of the rate bucket can never pass (transport/rate-limit.ts).
    {
      body: JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'x' }))),
      headers: {},
    },
  ];
}

/** Everything a server leaves of the probes: replies, rows, events, audit lines, ids and instants made neutral. */
async function transcript(name: string): Promise<string> {
  const dataDir = path.join(dir, `${name}-probes`);
  const child = await start(name, dataDir, { BENCH_RATE_LIMIT_PER_MINUTE: '1000' });
  const replies: Reply[] = [];
  try {
    for (const probe of probes(child.info.port)) {
      const auth: Record<string, string> = probe.noToken ? {} : { authorization: `Bearer ${child.info.token}` };
      replies.push(await post(child.info.port, probe.body, { ...auth, ...probe.headers }));
    }
  } finally {
    await child.stop();
  }
  const db = new Database(path.join(dataDir, 'contactor.db'), { readonly: true });
  const tasks = db.prepare('SELECT * FROM tasks ORDER BY created_at, message_id').all();
  const events = db.prepare('SELECT * FROM events ORDER BY task_id, seq').all();
  db.close();
  const audit = readFileSync(path.join(dataDir, 'audit', 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n');
  return neutral(JSON.stringify({ replies, tasks, events, audit }, null, 1), child.info.port);
}

/** Ids (UUIDv7, in order of first appearance), instants, the port and the rate bucket's wait become placeholders. */
function neutral(text: string, port: number): string {
  const ids = new Map<string, string>();
  return text
    .replaceAll(`:${port}`, ':<port>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id ${ids.size + 1}>`);
      return ids.get(id)!;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<instant>')
    .replace(/retry in \d+ s/g, 'retry in <n> s')
    .replace(/(retryAfterMs\\?":)\d+/g, '$1<n>')
    .replace(/("retry-after": ")\d+/g, '$1<n>');
}

describe('the durable ceiling', () => {
  it('answers, stores and audits the ten probes exactly as the product does', async () => {
    const [product, ceiling] = [await transcript('contactor-echo'), await transcript('durable-ceiling')];
    // The probes did reach every path: two tasks, a replay, a conflict and the five refusals.
    expect(product).toContain('"status": 421');
    expect(product).toContain('-32061');
    expect(product).toContain('"reason\\":\\"rate-limited');
    expect(product).toContain('[REDACTED]');
    expect(ceiling).toBe(product);
  });

  it('loses nothing it answered when killed with SIGKILL under load', async () => {
    const dataDir = path.join(dir, 'ceiling-kill');
    const child = await start('durable-ceiling', dataDir);
    const answered = new Map<string, { taskId: string; result: string }>();
    const auth = { authorization: `Bearer ${child.info.token}` };
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      while (!killed) {
        const messageId = `kill-${next++}`;
        const reply = await post(child.info.port, send(messageId, `job ${messageId}`), auth).catch(() => undefined);
        if (!reply) return; // cut off by the kill
        const result = JSON.stringify((JSON.parse(reply.body) as { result: unknown }).result);
        answered.set(messageId, { taskId: (JSON.parse(result) as { id: string }).id, result });
        if (answered.size >= 300 && !killed) {
          killed = true;
          child.process.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await new Promise<void>((resolve) =>
      child.process.exitCode !== null || child.process.signalCode !== null
        ? resolve()
        : child.process.once('exit', () => resolve()),
    );
    expect(child.process.signalCode).toBe('SIGKILL');

    // The product's own open: it refuses a WAL that would lose commits, then replays it.
    const db = openDatabase(path.join(dataDir, 'contactor.db'));
    const rows = db.prepare('SELECT id, state, last_seq, message_id, task_json FROM tasks').all() as {
      id: string;
      state: string;
      last_seq: number;
      message_id: string;
      task_json: string;
    }[];
    const eventCount = new Map(
      (
        db.prepare('SELECT task_id, count(*) AS n FROM events GROUP BY task_id').all() as {
          task_id: string;
          n: number;
        }[]
      ).map((r) => [r.task_id, r.n]),
    );
    db.close();
    const byMessage = new Map(rows.map((r) => [r.message_id, r]));
    for (const [messageId, { taskId, result }] of answered) {
      const row = byMessage.get(messageId);
      expect(row?.id, `answered ${messageId} is missing after the kill`).toBe(taskId);
      expect(row!.state).toBe('completed');
      expect(row!.task_json).toBe(result);
      expect(eventCount.get(taskId)).toBe(3);
    }
    // Nothing half-written: a task is either only created, or finished with its three events.
    for (const row of rows) {
      const shape = `${row.state}/${row.last_seq}/${eventCount.get(row.id) ?? 0}`;
      expect(['submitted/0/0', 'completed/3/3']).toContain(shape);
    }
    const audit = readFileSync(path.join(dataDir, 'audit', 'audit.jsonl'), 'utf8');
    for (const { taskId } of answered.values()) {
      expect(audit).toContain(`"type":"task.created","taskId":"${taskId}"`);
      expect(audit).toContain(`"type":"task.completed","taskId":"${taskId}"`);
    }

    // Restarted on the same file, every answered messageId is a replay of the stored task.
    const again = await start('durable-ceiling', dataDir);
    try {
      const replays = [...answered].slice(0, 50);
      for (const [messageId, { result }] of replays) {
        const reply = await post(again.info.port, send(messageId, `job ${messageId}`), {
          authorization: `Bearer ${again.info.token}`,
        });
        expect(JSON.stringify((JSON.parse(reply.body) as { result: unknown }).result)).toBe(result);
      }
    } finally {
      await again.stop();
    }
  });
});
