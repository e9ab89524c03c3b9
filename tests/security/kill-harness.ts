/**
 * kill -9 of a real bridge process during a load of concurrent tasks, restart, repeat. Shared by the CI
 * test (3 rounds) and the opt-in soak (`npm run soak`, many rounds). Plain node:assert, so it runs under
 * vitest and as a script alike.
 *
 * After each restart, every task accepted in an earlier round must be found, in a state that tells the
 * truth: `completed` only if the agent really ran it, otherwise `failed` with `retryable: true` (the
 * restart's verdict). Every messageId of earlier rounds is then replayed: a stored one returns the same
 * task and never runs again — the fixture agent's run log holds each messageId at most once.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { DiscoverySchema } from '../../main/schema/discovery.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../main/transport/connection-guard.js';
import { REPO_ROOT, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { SECURITY_FIXTURES, nodeFixture } from './attack-agents.js';

export interface KillRoundsOptions {
  rounds: number;
  sendsPerRound: number;
  /** Longest pause before the kill, after the sends started (each round picks at random below it). */
  maxKillDelayMs?: number;
  /**
   * Before each round's sends, also the clean-restart path: stop (SIGTERM), an outside SQLite client
   * reads the database (Debian's sqlite3, or better-sqlite3 in a process of its own), start, and the
   * outside client reads again while the bridge runs. Closing a stray fd on the database once dropped the
   * bridge's locks at that start, and that second reader deleted the live WAL.
   */
  outsideReads?: boolean;
  log?: (line: string) => void;
}

export interface KillFigures {
  kills: number;
  sent: number;
  /** Sends the bridge answered before it was killed. */
  accepted: number;
  /** Sends cut off by the kill (no answer; their replay after the restart decides). */
  cutOff: number;
  tasksChecked: number;
  completed: number;
  failedByRestart: number;
  replays: number;
  /** Outside reads of the database: after each clean stop, and again once the bridge started. */
  outsideReads: number;
  duplicateRuns: number;
  leakedProcesses: number;
}

const AGENTS = ['k1', 'k2', 'k3'];
/**
 * Replays in flight at once. Each in-flight fetch holds its own connection, and the bridge refuses a
 * connection past its bridge-wide cap (connection-guard.ts, `maxConnections`, -32065): a soak that replayed
 * every earlier messageId at once failed at round 8 (540+ replays) on the cap, not on a broken promise.
 */
export const REPLAY_CONCURRENCY = Math.min(64, DEFAULT_CONNECTION_LIMITS.maxConnections / 16);
/**
 * The real `contactor serve`, started as users start it: bin/contactor.js runs the bundle tests/global-setup.ts
 * builds (the soak builds it too), ~1 s faster per start than compiling the source through tsx each time.
 */
const SERVE = [path.join(REPO_ROOT, 'bin', 'contactor.js'), 'serve', '-c'];

export interface BridgeProcess {
  child: ChildProcess;
  url: string;
  token: string;
  exited: Promise<void>;
}

export async function runKillRounds(opts: KillRoundsOptions): Promise<KillFigures> {
  const log = opts.log ?? (() => undefined);
  const dir = tempDir();
  const runLog = path.join(dir, 'runs.log');
  const agent = nodeFixture(path.join(SECURITY_FIXTURES, 'record-run.mjs'), {
    env: { RUN_LOG: runLog, SLEEP_MS: '150' },
    max_queue: 10_000,
  });
  const { configPath, dataDir } = writeTestConfig(dir, {
    agents: Object.fromEntries(AGENTS.map((a) => [a, agent])),
    config: { rate_limit_per_minute: 1_000_000 },
  });
  const figures: KillFigures = {
    kills: 0,
    sent: 0,
    accepted: 0,
    cutOff: 0,
    tasksChecked: 0,
    completed: 0,
    failedByRestart: 0,
    replays: 0,
    outsideReads: 0,
    duplicateRuns: 0,
    leakedProcesses: 0,
  };
  const accepted = new Map<string, { agent: string; taskId: string }>();
  const sentIds: { messageId: string; agent: string; text: string }[] = [];
  let bridge: BridgeProcess | undefined;
  try {
    for (let round = 0; round < opts.rounds; round += 1) {
      bridge = await startBridgeProcess(configPath, dataDir, dir);
      if (round > 0) await checkAndReplay(bridge, accepted, sentIds, runLog, figures);
      if (opts.outsideReads) {
        await stopBridgeProcess(bridge);
        const seen = outsideCount(path.join(dataDir, 'contactor.db'));
        assert.ok(
          seen >= accepted.size,
          `an outside reader saw ${seen} tasks, fewer than the ${accepted.size} accepted`,
        );
        bridge = await startBridgeProcess(configPath, dataDir, dir);
        // And while it runs: this reader found the bridge's locks gone and deleted the WAL it wrote into.
        outsideCount(path.join(dataDir, 'contactor.db'));
        figures.outsideReads += 2;
      }

      const acceptedBefore = accepted.size;
      let firstAccepted = (): void => undefined;
      const oneAccepted = new Promise<void>((resolve) => (firstAccepted = resolve));
      const sends = Array.from({ length: opts.sendsPerRound }, (_, i) => {
        const agentName = AGENTS[i % AGENTS.length]!;
        const item = { messageId: `r${round}-${agentName}-${i}`, agent: agentName, text: `job ${round}.${i}` };
        sentIds.push(item);
        // Spread over the kill window, so some sends are answered, some cut off mid-request, some never made.
        const pause = Math.random() * (opts.maxKillDelayMs ?? 800);
        const params = {
          agent: item.agent,
          text: item.text,
          messageId: item.messageId,
          configuration: { blocking: false },
        };
        return new Promise((r) => setTimeout(r, pause))
          .then(() => rpc(bridge!, 'message/send', params))
          .then(
            (reply) => {
              if (!reply.result) return;
              accepted.set(item.messageId, { agent: item.agent, taskId: reply.result.id });
              firstAccepted();
            },
            () => undefined, // cut off by the kill: not accepted, so no promise was made
          );
      });
      figures.sent += sends.length;
      // The first round is killed only once it has accepted a send (or all its sends were answered), so every run
      // has accepted tasks to check: on a loaded machine the first answers can take longer than a short random
      // delay, in all three rounds (seen: accepted 0).
      if (round === 0) await Promise.race([oneAccepted, Promise.all(sends)]);
      const delay = Math.floor(Math.random() * (opts.maxKillDelayMs ?? 800));
      await new Promise((r) => setTimeout(r, delay));
      bridge.child.kill('SIGKILL');
      await bridge.exited;
      await Promise.all(sends);
      figures.kills += 1;
      figures.accepted += accepted.size - acceptedBefore;
      figures.cutOff += opts.sendsPerRound - (accepted.size - acceptedBefore);
      log(`round ${round}: killed after ${delay} ms; ${accepted.size} tasks accepted so far`);
    }
    bridge = await startBridgeProcess(configPath, dataDir, dir);
    await checkAndReplay(bridge, accepted, sentIds, runLog, figures);
    await stopBridgeProcess(bridge);
    bridge = undefined;
    figures.leakedProcesses = await leakedAgents(runLog);
    assert.equal(figures.leakedProcesses, 0, 'agent processes outlived the test');
    return figures;
  } finally {
    if (bridge) {
      bridge.child.kill('SIGKILL');
      await bridge.exited;
    }
    await leakedAgents(runLog);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function checkAndReplay(
  bridge: BridgeProcess,
  accepted: Map<string, { agent: string; taskId: string }>,
  sentIds: { messageId: string; agent: string; text: string }[],
  runLog: string,
  figures: KillFigures,
): Promise<void> {
  const ran = runCounts(runLog);
  for (const [messageId, { taskId }] of accepted) {
    const reply = await rpc(bridge, 'tasks/get', { id: taskId });
    assert.ok(
      reply.result,
      `accepted task ${taskId} (${messageId}) is missing after a restart: ${JSON.stringify(reply.error)}`,
    );
    const task = reply.result;
    figures.tasksChecked += 1;
    if (task.status.state === 'completed') {
      assert.ok((ran.get(messageId) ?? 0) >= 1, `task ${taskId} says completed, but its agent never ran ${messageId}`);
      assert.match(task.artifacts[0]?.parts[0]?.text ?? '', /^done: job /);
    } else {
      assert.equal(task.status.state, 'failed', `task ${taskId} is ${task.status.state} after a restart`);
      assert.equal(task.metadata.retryable, true, `task ${taskId} failed without retryable: true`);
    }
  }
  const replies = await mapBounded(sentIds, REPLAY_CONCURRENCY, (s) =>
    rpc(bridge, 'message/send', {
      agent: s.agent,
      text: s.text,
      messageId: s.messageId,
      configuration: { blocking: false },
    }).then((r) => ({ s, r })),
  );
  figures.replays += replies.length;
  for (const { s, r } of replies) {
    assert.ok(r.result, `replay of ${s.messageId} failed: ${JSON.stringify(r.error)}`);
    const known = accepted.get(s.messageId);
    if (known) assert.equal(r.result.id, known.taskId, `replay of ${s.messageId} made a new task`);
    else accepted.set(s.messageId, { agent: s.agent, taskId: r.result.id });
  }
  // Replays of messages that were lost in flight start new work: let it finish before counting runs.
  await untilNoneOpen(bridge);
  const counts = runCounts(runLog);
  const duplicates = [...counts].filter(([, n]) => n > 1);
  figures.duplicateRuns += duplicates.length;
  assert.deepEqual(duplicates, [], 'a messageId ran more than once');
  for (const [, n] of counts) assert.ok(n <= 1);
  figures.completed = (await rpc(bridge, 'tasks/list', { states: ['completed'], pageSize: 1 })).result.totalSize;
  figures.failedByRestart = (await rpc(bridge, 'tasks/list', { states: ['failed'], pageSize: 1 })).result.totalSize;
}

/** `items.map(fn)` with at most `limit` calls pending at once; results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function runCounts(runLog: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(runLog)) return counts;
  for (const line of readFileSync(runLog, 'utf8').split('\n')) {
    if (!line) continue;
    assert.ok(!line.startsWith('OVERLAP'), line);
    const messageId = line.split(' ')[1]!;
    counts.set(messageId, (counts.get(messageId) ?? 0) + 1);
  }
  return counts;
}

async function untilNoneOpen(bridge: BridgeProcess): Promise<void> {
  for (const deadline = Date.now() + 60_000; ;) {
    const open = await rpc(bridge, 'tasks/list', { states: ['submitted', 'working'], pageSize: 1 });
    if (open.result.totalSize === 0) return;
    assert.ok(Date.now() < deadline, `${open.result.totalSize} tasks still open after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SQLITE3 = '/usr/bin/sqlite3';

/** `select count(*) from tasks`, as another program on the machine would read it: in its own process. */
function outsideCount(db: string): number {
  const query = 'select count(*) from tasks';
  const out = existsSync(SQLITE3)
    ? execFileSync(SQLITE3, [db, query], { encoding: 'utf8' })
    : execFileSync(
        process.execPath,
        [
          '-e',
          `const D=require('better-sqlite3');const d=new D(process.argv[1]);console.log(d.prepare(${JSON.stringify(query)}).pluck().get());d.close()`,
          db,
        ],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      );
  return Number(out.trim());
}

/**
 * The real `contactor serve` in its own process; its URL and token come from the discovery file.
 * `env` adds variables (TMPDIR: a test's own temp folder).
 */
export async function startBridgeProcess(
  configPath: string,
  dataDir: string,
  home: string,
  env: Record<string, string> = {},
): Promise<BridgeProcess> {
  const child = spawn(process.execPath, [...SERVE, configPath], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: home, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const file = path.join(dataDir, 'bridge.json');
  for (const deadline = Date.now() + 60_000; ;) {
    assert.ok(!gone, `the bridge exited at startup: ${stderr}`);
    assert.ok(Date.now() < deadline, `the bridge did not start within 60 s: ${stderr}`);
    if (existsSync(file)) {
      try {
        const discovery = DiscoverySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
        if (discovery.pid === child.pid && discovery.token)
          return { child, url: discovery.url, token: discovery.token, exited };
      } catch {
        // Read between write and rename by another process: try again.
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function stopBridgeProcess(bridge: BridgeProcess): Promise<void> {
  bridge.child.kill('SIGTERM');
  await bridge.exited;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function rpc(bridge: BridgeProcess, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${bridge.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

/**
 * Agent processes still running: on Linux every process whose environment names this test's run log
 * (the killed bridges' orphans included). Waits up to 15 s for stragglers to finish on their own.
 */
async function leakedAgents(runLog: string): Promise<number> {
  if (process.platform !== 'linux') return 0;
  const marker = `RUN_LOG=${runLog}`;
  const find = (): number[] =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') return false; // dead, awaiting its reaper
          return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(marker);
        } catch {
          return false;
        }
      })
      .map(Number);
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    if (find().length === 0) return 0;
    await new Promise((r) => setTimeout(r, 100));
  }
  const left = find();
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return left.length;
}
