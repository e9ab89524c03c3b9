/**
 * A bridge with a long history: 100,000 finished tasks (each with its three events) written through
 * SqliteTaskStore, then a headless bridge started on that data dir in a child process (with
 * `history.max_tasks` raised above the count: the default keeps 10,000 and would prune the rest at startup). Measures
 * startup to the first healthy /health, `tasks/get` and `ListTasks` (v1) latency over HTTP, database
 * size per task, and idle RSS. Baselines, taken in the same section: a fresh bare node:http floor
 * started the same way (spawn → first 200, then its RSS after the same idle wait), and the floor's round
 * trip, one floor call interleaved with each bridge call so a noisy moment touches both alike.
 */
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { artifactUpdate, statusUpdate } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { startBridgeChild, freePort, waitHealthy } from '../lib/bridge-child.js';
import { REPO_ROOT, cpuMs, rssMb, startChild } from '../lib/children.js';
import { KeepAliveClient } from '../lib/http-client.js';
import { nextSlice, untilInterrupted } from '../lib/interrupt.js';
import { percentile } from '../lib/stats.js';

export interface ScaleResult {
  tasks: number;
  insertSeconds: number;
  dbBytesPerTask: number;
  startupMs: number;
  /** CPU time (all threads) the bridge used up to its first healthy answer: steadier than wall time. */
  startupCpuMs: number | undefined;
  getP50Ms: number;
  getP99Ms: number;
  listP50Ms: number;
  listP99Ms: number;
  listPageSize: number;
  idleRssMb: number | undefined;
  rssAfterLoadMb: number | undefined;
  floor: {
    startupMs: number;
    startupCpuMs: number | undefined;
    idleRssMb: number | undefined;
    /** Round trips interleaved with the `tasks/get` calls, and with the `ListTasks` calls. */
    getRttP50Ms: number;
    getRttP99Ms: number;
    listRttP50Ms: number;
    listRttP99Ms: number;
  };
}

const PROMPT =
  'Refactor the retry loop in src/net/fetch.ts so it backs off exponentially; keep the public API the same.';
const REPLY =
  'Done. I replaced the fixed 500 ms sleep with an exponential backoff (base 250 ms, factor 2, cap 8 s, full jitter) and added a test. '.repeat(
    3,
  );

/** A finished task shaped like the ones the dispatcher stores (history, reply artifact, metadata). */
function finishedTask(i: number, base: number): { task: Task; messageId: string } {
  const id = randomUUID();
  const contextId = randomUUID();
  const created = new Date(base + i * 1000).toISOString();
  const done = new Date(base + i * 1000 + 850).toISOString();
  const messageId = randomUUID();
  return {
    messageId,
    task: {
      kind: 'task',
      id,
      contextId,
      status: { state: 'completed', timestamp: done },
      history: [
        { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: PROMPT }], taskId: id, contextId },
      ],
      artifacts: [{ artifactId: `${id}-reply`, name: 'reply', parts: [{ kind: 'text', text: REPLY }] }],
      metadata: {
        agent: i % 3 === 0 ? 'codex' : 'claude',
        requiresReview: true,
        createdAt: created,
        delegationDepth: 0,
        visitedAgents: ['claude'],
        receipt: { requestedForm: 'acp', pid: 4242, processReused: true, sessionId: `s-${i}`, firstOutputAt: created },
      },
    },
  };
}

/**
 * Writes `count` finished tasks in slices of `SLICE_TASKS`, turning the event loop between them so that
 * Ctrl-C stops it (bench/lib/interrupt.ts). The store is closed however the fill ends.
 */
export async function fillStore(
  file: string,
  count: number,
  signal: AbortSignal,
): Promise<{ seconds: number; ids: string[] }> {
  const ids: string[] = [];
  const store = new SqliteTaskStore({ file });
  try {
    const base = Date.now() - count * 1000;
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      const { task, messageId } = finishedTask(i, base);
      ids.push(task.id);
      const working = { state: 'working' as const, timestamp: task.metadata.createdAt };
      store.create(
        task,
        [
          statusUpdate(task, 1, working, false),
          artifactUpdate(task, 2, task.artifacts[0]!, { append: false, lastChunk: true }),
          statusUpdate(task, 3, task.status, true),
        ],
        { scope: task.metadata.agent, messageId, payloadHash: 'f'.repeat(64) },
      );
      // The store holds a turn's writes until its group commits (main/stores/group-commit.ts, in
      // setImmediate): a slice is one turn and one transaction, ended by hand (the fill is setup, not a
      // measurement). Turning the loop more often would commit smaller groups and slow the fill down.
      if (i % SLICE_TASKS === SLICE_TASKS - 1) {
        store.flush();
        await nextSlice(signal);
      }
    }
    return { seconds: (performance.now() - t0) / 1000, ids };
  } finally {
    store.close();
  }
}

/**
 * Tasks written between two turns of the event loop, in one transaction: 0.2–0.25 s measured on a busy
 * machine (2 cores at load 11), so Ctrl-C stops the fill that soon. One turn per 5 ms instead made the
 * fill 1.7× slower (a group commit per turn).
 */
const SLICE_TASKS = 500;

/**
 * The filled database, made once per task count and schema (keyed by main/stores/migrations.ts) and
 * kept in `cacheDir`: filling 100k tasks takes longer than the rest of the scale section.
 * `insertSeconds` is 0 when the cache was used. Ctrl-C while filling removes the partial database
 * (and its WAL) and throws BenchInterrupted.
 */
async function filledStore(
  cacheDir: string,
  count: number,
  log: (what: string) => void,
): Promise<{ seconds: number; ids: string[]; cached: string }> {
  const schema = createHash('sha256')
    .update(readFileSync(path.join(REPO_ROOT, 'main', 'stores', 'migrations.ts')))
    .update(FILL_VERSION)
    .digest('hex');
  const base = path.join(cacheDir, `scale-${count}-${schema.slice(0, 12)}`);
  if (existsSync(`${base}.db`) && existsSync(`${base}.ids.json`)) {
    return { seconds: 0, ids: JSON.parse(readFileSync(`${base}.ids.json`, 'utf8')) as string[], cached: `${base}.db` };
  }
  mkdirSync(cacheDir, { recursive: true });
  const removeDatabase = (): void => {
    for (const suffix of ['.db', '.db-wal', '.db-shm']) rmSync(`${base}${suffix}`, { force: true });
  };
  removeDatabase();
  try {
    const filled = await untilInterrupted((signal) => {
      log(`scale: filling ${count} tasks into ${base}.db (kept for later runs; Ctrl-C stops it)`);
      return fillStore(`${base}.db`, count, signal);
    });
    writeFileSync(`${base}.ids.json`, JSON.stringify(filled.ids));
    return { ...filled, cached: `${base}.db` };
  } catch (err) {
    removeDatabase();
    throw err;
  }
}

/** Bump when the generated tasks change shape, so an old cache is not reused. */
const FILL_VERSION = 'v1';

const IDLE_MS = 500;
const FLOOR_BODY = '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}';

/** A fresh bare node:http server, started and timed exactly like the bridge: spawn → first 200. */
async function startFloor(buildDir: string) {
  const port = await freePort();
  const since = performance.now();
  const starting = startChild<{ ready: boolean; port: number }>(path.join(buildDir, 'bare-floor.mjs'), [String(port)]);
  const startupMs = await waitHealthy(port, since);
  const floor = await starting;
  return { floor, port, startupMs, startupCpuMs: cpuMs(floor.pid) };
}

export async function measureScale(opts: {
  buildDir: string;
  cacheDir: string;
  root: string;
  tasks: number;
  getCalls: number;
  listCalls: number;
  listPageSize: number;
  log: (what: string) => void;
}): Promise<ScaleResult> {
  const dataDir = path.join(opts.root, 'scale-data');
  mkdirSync(dataDir, { recursive: true });
  const dbFile = path.join(dataDir, 'contactor.db');
  const { seconds: insertSeconds, ids: allIds, cached } = await filledStore(opts.cacheDir, opts.tasks, opts.log);
  copyFileSync(cached, dbFile);
  // A fixed stride through the whole history: old tasks and new ones alike.
  const ids = Array.from({ length: opts.getCalls }, (_, i) => allIds[(i * 7919) % allIds.length]!);
  const dbBytesPerTask = statSync(dbFile).size / opts.tasks;

  const floorStart = await startFloor(opts.buildDir);
  const port = await freePort();
  const since = performance.now();
  const starting = startBridgeChild({
    buildDir: opts.buildDir,
    root: opts.root,
    dataDir,
    agents: {},
    port,
    config: { history: { max_tasks: opts.tasks * 10 } },
  });
  const startupMs = await waitHealthy(port, since);
  const bridge = await starting;
  const startupCpuMs = cpuMs(bridge.pid);
  const floorClient = new KeepAliveClient({ port: floorStart.port }, 1);
  const floorCall = async (into: number[]) => {
    const t0 = performance.now();
    await floorClient.post('/', FLOOR_BODY);
    into.push(performance.now() - t0);
  };
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleRssMb = rssMb(bridge.pid);
    const floorIdleRssMb = rssMb(floorStart.floor.pid);
    const client = new KeepAliveClient({ port, headers: { authorization: `Bearer ${bridge.info.token}` } }, 1);
    const get: number[] = [];
    const getRtt: number[] = [];
    for (let i = 0; i < opts.getCalls; i++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tasks/get', params: { id: ids[i] } });
      await floorCall(getRtt);
      const t0 = performance.now();
      const reply = await client.post('/', body);
      get.push(performance.now() - t0);
      if (!reply.body.includes('"state":"completed"')) throw new Error(`tasks/get failed: ${reply.body.slice(0, 200)}`);
    }
    const list: number[] = [];
    const listRtt: number[] = [];
    let pageToken = '';
    for (let i = 0; i < opts.listCalls; i++) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'ListTasks',
        params: { pageSize: opts.listPageSize, ...(pageToken ? { pageToken } : {}) },
      });
      await floorCall(listRtt);
      const t0 = performance.now();
      const reply = await client.post('/', body, { 'A2A-Version': '1.0' });
      list.push(performance.now() - t0);
      const result = (JSON.parse(reply.body) as { result?: { tasks: unknown[]; nextPageToken: string } }).result;
      if (!result || result.tasks.length !== opts.listPageSize)
        throw new Error(`ListTasks failed: ${reply.body.slice(0, 200)}`);
      // Walk 20 pages deep, then start over: deep pages and first pages both count.
      pageToken = i % 20 === 19 ? '' : result.nextPageToken;
    }
    client.close();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return {
      tasks: opts.tasks,
      insertSeconds,
      dbBytesPerTask,
      startupMs,
      startupCpuMs,
      getP50Ms: percentile(get, 50),
      getP99Ms: percentile(get, 99),
      listP50Ms: percentile(list, 50),
      listP99Ms: percentile(list, 99),
      listPageSize: opts.listPageSize,
      idleRssMb,
      rssAfterLoadMb: rssMb(bridge.pid),
      floor: {
        startupMs: floorStart.startupMs,
        startupCpuMs: floorStart.startupCpuMs,
        idleRssMb: floorIdleRssMb,
        getRttP50Ms: percentile(getRtt, 50),
        getRttP99Ms: percentile(getRtt, 99),
        listRttP50Ms: percentile(listRtt, 50),
        listRttP99Ms: percentile(listRtt, 99),
      },
    };
  } finally {
    floorClient.close();
    await Promise.all([bridge.stop(), floorStart.floor.stop()]);
  }
}
