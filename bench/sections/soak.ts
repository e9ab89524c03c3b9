/**
 * Flat over a long run: `total` tasks through one headless bridge (real ACP agents, the product's store,
 * audit log and pruning), the bridge's memory and data dir measured after `early` tasks and again at the
 * end. The mix: blocking sends to two echo agents, half in a context of their own (as a client that sends
 * no contextId) and half in one of a pool of reused contexts; streamed replies (message/stream); and
 * tasks that ask — a decision or a permission request, answered by a second message. What grows with the
 * number of tasks shows as the difference between the two points; each point is taken with the bridge
 * idle, after a full GC (bench/servers/bridge-serve.ts, SIGUSR2).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startBridgeChild } from '../lib/bridge-child.js';
import { BENCH_DIR, REPO_ROOT } from '../lib/children.js';
import { KeepAliveClient, type HttpReply } from '../lib/http-client.js';
import { streamThroughBridge } from './streaming.js';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';

export interface SoakPoint {
  tasks: number;
  rssMb: number;
  heapUsedMb: number;
  /** Outside the JS heap: V8's external memory (Buffers among it) and, from /proc, anonymous vs file pages. */
  externalMb: number;
  /** V8's committed heap (used or not): what the heap holds of the RSS. */
  heapTotalMb: number;
  rssAnonMb: number | undefined;
  rssFileMb: number | undefined;
  /** contactor.db and its WAL and shared-memory files: what `history.max_tasks` bounds. */
  databaseMb: number;
  /** The whole data dir: the database, the audit log (rotated: 5 MB × 4 files at most), the bridge's log. */
  dataDirMb: number;
  /** Tasks per second since the previous point. */
  perSecond: number;
}

export interface Soak {
  total: number;
  concurrency: number;
  maxTasks: number;
  points: SoakPoint[];
  seconds: number;
}

/** The pruning the soak runs with: the store keeps at most this many finished tasks (and a tenth more). */
const MAX_TASKS = 5_000;
/** Contexts reused by half the echo sends: a conversation per context, each visited many times. */
const CONTEXT_POOL = 1_000;

type Kind = 'echo-new' | 'echo-pool' | 'stream' | 'decide' | 'permission';

/** Task i's kind: a fixed cycle of 20 (14 echo, 3 streamed, 3 asking). */
function kindOf(i: number): Kind {
  const slot = i % 20;
  if (slot < 7) return 'echo-new';
  if (slot < 14) return 'echo-pool';
  if (slot < 17) return 'stream';
  return slot < 19 ? 'decide' : 'permission';
}

export async function measureSoak(opts: {
  buildDir: string;
  root: string;
  total: number;
  early: number;
  concurrency: number;
  log: (what: string) => void;
}): Promise<Soak> {
  const dataDir = path.join(opts.root, 'soak-data');
  const fakeAgent = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');
  const stampAgent = path.join(BENCH_DIR, 'fixtures', 'stamp-agent.mjs');
  const acp = (file: string, contract: boolean) => ({
    kind: 'acp',
    command: [process.execPath, file],
    append_decision_contract: contract,
    timeout_s: 120,
  });
  const bridge = await startBridgeChild({
    buildDir: opts.buildDir,
    root: opts.root,
    dataDir,
    agents: {
      'echo-a': acp(fakeAgent, false),
      'echo-b': acp(fakeAgent, false),
      stream: acp(stampAgent, false),
      ask: acp(fakeAgent, true),
    },
    config: { history: { max_tasks: MAX_TASKS, max_age_days: 90 }, max_concurrent_tasks: 64 },
    nodeFlags: [...HEADLESS_NODE_FLAGS, '--expose-gc'],
  });
  const headers = { authorization: `Bearer ${bridge.info.token}` };
  const client = new KeepAliveClient({ port: bridge.info.port, headers }, opts.concurrency);
  const memory = memoryProbe(bridge.process.stdout!, () => bridge.process.kill('SIGUSR2'));
  const pool = Array.from({ length: CONTEXT_POOL }, () => randomUUID());

  const send = async (agent: string, text: string, extra: Record<string, unknown> = {}): Promise<TaskReply> => {
    const reply = await client.post(
      `/agents/${agent}`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text }],
            ...extra,
          },
        },
      }),
    );
    return taskOf(reply);
  };
  const expectState = (task: TaskReply, state: string, what: string): TaskReply => {
    if (task.status.state !== state) throw new Error(`soak: ${what} ended ${task.status.state}, not ${state}`);
    return task;
  };
  const runTask = async (i: number): Promise<void> => {
    const kind = kindOf(i);
    const echo = i % 2 === 0 ? 'echo-a' : 'echo-b';
    if (kind === 'echo-new') expectState(await send(echo, `echo task ${i}`), 'completed', 'an echo');
    else if (kind === 'echo-pool')
      expectState(await send(echo, `echo task ${i}`, { contextId: pool[i % CONTEXT_POOL] }), 'completed', 'an echo');
    else if (kind === 'stream') {
      let chars = 0;
      await streamThroughBridge(
        { port: bridge.info.port, token: bridge.info.token, agent: 'stream' },
        'bulk 2048 256',
        (text) => (chars += text.length),
      );
      if (chars !== 2048) throw new Error(`soak: a streamed reply carried ${chars} characters, not 2048`);
    } else {
      const parked = expectState(
        await send('ask', kind === 'decide' ? 'decide now' : 'permission now'),
        'input-required',
        'a question',
      );
      const answer = kind === 'decide' ? 'YAML' : 'allow';
      expectState(
        await send('ask', answer, { taskId: parked.id, contextId: parked.contextId }),
        'completed',
        'an answer',
      );
    }
  };

  const points: SoakPoint[] = [];
  const started = performance.now();
  let sent = 0;
  let finished = 0;
  let since = performance.now();
  const runUntil = async (count: number): Promise<void> => {
    let failure: unknown;
    const worker = async (): Promise<void> => {
      while (sent < count && failure === undefined) {
        const i = sent++;
        try {
          await runTask(i);
        } catch (err) {
          failure ??= err;
        }
        finished += 1;
        if (finished % 10_000 === 0) opts.log(`soak: ${finished} tasks done`);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    if (failure !== undefined) throw failure;
  };
  const measure = async (): Promise<void> => {
    const elapsed = (performance.now() - since) / 1000;
    const usage = await memory.read();
    const previous = points.at(-1)?.tasks ?? 0;
    points.push({
      tasks: sent,
      rssMb: usage.rss / 2 ** 20,
      heapUsedMb: usage.heapUsed / 2 ** 20,
      externalMb: usage.external / 2 ** 20,
      heapTotalMb: usage.heapTotal / 2 ** 20,
      ...rssSplit(bridge.pid),
      databaseMb: bytesUnder(dataDir, (name) => name.startsWith('contactor.db')) / 2 ** 20,
      dataDirMb: bytesUnder(dataDir, () => true) / 2 ** 20,
      perSecond: (sent - previous) / elapsed,
    });
    since = performance.now();
  };
  try {
    await runUntil(opts.early);
    await measure();
    await runUntil(opts.total);
    await measure();
  } finally {
    client.close();
    await bridge.stop();
  }
  return {
    total: opts.total,
    concurrency: opts.concurrency,
    maxTasks: MAX_TASKS,
    points,
    seconds: (performance.now() - started) / 1000,
  };
}

interface TaskReply {
  id: string;
  contextId: string;
  status: { state: string };
}

function taskOf(reply: HttpReply): TaskReply {
  const body = JSON.parse(reply.body) as { result?: TaskReply; error?: { message: string } };
  if (reply.status !== 200 || !body.result) {
    throw new Error(`soak: a send was refused (${reply.status}): ${body.error?.message ?? reply.body.slice(0, 200)}`);
  }
  return body.result;
}

/** The bridge answers SIGUSR2 with one `{memory}` line on its stdout (bench/servers/bridge-serve.ts). */
function memoryProbe(stdout: NodeJS.ReadableStream, ask: () => void): { read: () => Promise<NodeJS.MemoryUsage> } {
  let waiting: ((usage: NodeJS.MemoryUsage) => void) | undefined;
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith('{"memory"')) continue;
      const usage = (JSON.parse(line) as { memory: NodeJS.MemoryUsage }).memory;
      waiting?.(usage);
      waiting = undefined;
    }
  });
  return {
    read: () =>
      new Promise((resolve) => {
        waiting = resolve;
        ask();
      }),
  };
}

/** Resident anonymous and file-backed memory of a process, in MB (Linux /proc/<pid>/status). */
function rssSplit(pid: number): { rssAnonMb: number | undefined; rssFileMb: number | undefined } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const v = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1];
      return v === undefined ? undefined : Number(v) / 1024;
    };
    return { rssAnonMb: kb('RssAnon'), rssFileMb: kb('RssFile') };
  } catch {
    return { rssAnonMb: undefined, rssFileMb: undefined };
  }
}

function bytesUnder(dir: string, match: (name: string) => boolean): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += match(entry.name) ? bytesUnder(full, () => true) : 0;
    else if (entry.isFile() && match(entry.name)) total += statSync(full).size;
  }
  return total;
}
