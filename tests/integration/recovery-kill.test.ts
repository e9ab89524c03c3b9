/**
 * The "Done means": a real bridge process killed with SIGKILL mid-task, restarted on the same
 * data dir, shows the running task as failed + retryable with a reason naming the restart; a question
 * that was waiting survives and can still be answered; the discovery file is rewritten; and a second
 * bridge on a data dir in use is refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isRunning, pidFrom } from '../fixtures/cli/processes.js';
import { eventually, pollUntil, waitForState } from '../helpers/wait.js';
import { echoAgent, fixtureAgent } from '../helpers/bridge.js';
import { call, spawnBridge, waitForDiscovery, type BridgeProcess } from './recovery-process.js';

let root: string;
let dataDir: string;
let configPath: string;
const started: BridgeProcess[] = [];
const agentGroups: number[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'contactor-recovery-'));
  dataDir = path.join(root, 'data');
  configPath = path.join(root, 'config.yaml');
  const sleepy = fixtureAgent('sleeper.mjs', {
    prompt_via: 'arg',
    prompt_flag: ['--pid-file', path.join(root, 'agent.pid')],
    timeout_s: 600,
  });
  writeFileSync(configPath, stringify({ port: 0, data_dir: dataDir, agents: { sleepy, echo: echoAgent() } }));
});

afterAll(async () => {
  for (const proc of started) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
  }
  for (const pgid of agentGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
});

function start(): BridgeProcess {
  const proc = spawnBridge(configPath);
  started.push(proc);
  return proc;
}

/** tasks/get on a bridge in another process (recovery-process.ts), until the task is in `state`. */
const waitForStateOf = (bridge: Parameters<typeof call>[0], id: string, state: string) =>
  waitForState({ rpc: (method, params) => call(bridge, method, params) }, id, state);

it('recovers after kill -9: the running task fails retryable, the question survives, the lock holds', async () => {
  const first = start();
  const before = await waitForDiscovery(dataDir, first);

  const running = await call(before, 'message/send', {
    agent: 'sleepy',
    text: 'work forever',
    configuration: { blocking: false },
  });
  expect(running.result).toBeDefined();
  const taskId = running.result.id as string;
  await waitForStateOf(before, taskId, 'working');
  // A task is `working` from the moment it leaves its queue, before its agent's process exists: the pid joins
  // the receipt once the process has started (docs/contract.md#task-metadata), so wait for it, not for the state.
  const working = (
    await pollUntil(
      () => call(before, 'tasks/get', { id: taskId }),
      (res) => typeof res.result?.metadata?.receipt?.pid === 'number',
      `task ${taskId}'s receipt to carry its agent's pid`,
    )
  ).result;
  const agentPid = await pidFrom(path.join(root, 'agent.pid'));
  agentGroups.push(agentPid);
  expect(working.metadata.receipt.pid).toBe(agentPid);

  const question = await call(before, 'message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
  expect(question.result.status.state).toBe('input-required');

  first.child.kill('SIGKILL');
  expect(await first.exited).toBeNull();
  // The agent outlives a SIGKILLed bridge (nothing could stop it); reap its process group ourselves.
  process.kill(-working.metadata.receipt.pid, 'SIGKILL');
  await eventually(() => !isRunning(agentPid));
  // A crash leaves the discovery file behind, naming a dead pid.
  expect(JSON.parse(readFileSync(path.join(dataDir, 'bridge.json'), 'utf8')).pid).toBe(first.child.pid);

  const second = start();
  const after = await waitForDiscovery(dataDir, second);
  expect(after.pid).toBe(second.child.pid);
  expect(after.pid).not.toBe(before.pid);
  expect(after.startedAt >= before.startedAt).toBe(true);

  const recovered = (await call(after, 'tasks/get', { id: taskId })).result;
  expect(recovered.status.state).toBe('failed');
  expect(recovered.metadata.retryable).toBe(true);
  expect(recovered.status.message.parts[0].text).toMatch(/restart/i);

  const waiting = (await call(after, 'tasks/get', { id: question.result.id })).result;
  expect(waiting.status.state).toBe('input-required');
  expect(waiting.metadata.pending).toMatchObject({ kind: 'decision', options: ['YAML', 'TOML'] });
  const answered = await call(after, 'tasks/answer', { taskId: question.result.id, answer: '2' });
  expect(answered.error).toBeUndefined();
  const done = await waitForStateOf(after, question.result.id, 'completed');
  expect(JSON.stringify(done.artifacts)).toContain('Going with TOML');

  // A second bridge on the same data dir is refused, clearly, and leaves the running one alone.
  const intruder = start();
  expect(await intruder.exited).not.toBe(0);
  expect(intruder.stderr()).toMatch(/another contactor bridge \(pid \d+\) is already using/);
  expect(intruder.stderr()).toContain(String(second.child.pid));
  expect(JSON.parse(readFileSync(path.join(dataDir, 'bridge.json'), 'utf8')).pid).toBe(second.child.pid);
  expect((await fetch(`${after.url}/health`)).ok).toBe(true);

  // A clean stop removes the discovery file and the lock.
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  expect(existsSync(path.join(dataDir, 'bridge.json'))).toBe(false);
  expect(existsSync(path.join(dataDir, 'bridge.lock'))).toBe(false);
});
