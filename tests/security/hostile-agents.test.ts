/**
 * Agents that misbehave: one floods stdout and stderr, one writes binary garbage, one never answers (and
 * ignores SIGTERM), one forks a child that holds its pipes and exits. While they do, a well-behaved agent's
 * tasks complete and /health answers; afterwards every process they started is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../fixtures/cli/processes.js';
import { eventually, waitForState } from '../helpers/wait.js';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';

let tb: TestBridge;
let pidDir: string;
const MAX_ARTIFACT = 1024 * 1024;

beforeAll(async () => {
  const dir = tempDir();
  pidDir = path.join(dir, 'pids');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(pidDir);
  const env = { PID_DIR: pidDir, RUN_LOG: path.join(dir, 'runs.log') };
  tb = await startTestBridge({
    dir,
    isolatedEnv: true,
    config: { max_artifact_bytes: MAX_ARTIFACT },
    agents: {
      flood: nodeFixture('flood-both.mjs', { env: { FLOOD_MIB: '40' } }),
      garbage: nodeFixture('garbage.mjs'),
      hang: nodeFixture('hang.mjs', { env, timeout_s: 2 }),
      fork: nodeFixture('fork-exit.mjs', { env }),
      good: nodeFixture('record-run.mjs', { env }),
    },
  });
});
afterAll(async () => {
  await tb?.cleanup();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settled(id: string): Promise<any> {
  return waitForState(tb, id, ['completed', 'failed', 'canceled', 'rejected']);
}

const pids = (prefix: string) =>
  readdirSync(pidDir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => Number(readFileSync(path.join(pidDir, f), 'utf8')));

describe('hostile agents', () => {
  it('keep the bridge responsive, are contained, and leave no process behind', async () => {
    const start = (agent: string) =>
      tb
        .rpc('message/send', { agent, text: 'go', configuration: { blocking: false } })
        .then((r) => r.result.id as string);
    const hostile = {
      flood: await start('flood'),
      garbage: await start('garbage'),
      hangTimeout: await start('hang'),
      fork: await start('fork'),
    };
    const hangCanceled = await start('hang');

    // Meanwhile the well-behaved agent is served, one task after another, and the bridge answers.
    for (let i = 0; i < 5; i += 1) {
      const res = await tb.rpc('message/send', { agent: 'good', text: `task ${i}` });
      expect(res.result.status.state).toBe('completed');
      expect((await fetch(`${tb.url}/health`)).status).toBe(200);
    }

    const flood = await settled(hostile.flood);
    expect(flood.status.state).toBe('completed');
    expect(flood.metadata.truncated).toMatchObject({ at: MAX_ARTIFACT });
    expect(flood.metadata.truncated.droppedBytes).toBeGreaterThan(0);
    expect(Buffer.byteLength(flood.artifacts[0].parts[0].text)).toBeLessThanOrEqual(MAX_ARTIFACT);

    const garbage = await settled(hostile.garbage);
    expect(garbage.status.state).toBe('completed');
    expect(garbage.artifacts[0].parts[0].text.length).toBeGreaterThan(0);

    const timedOut = await settled(hostile.hangTimeout);
    expect(timedOut.status.state).toBe('failed');
    expect(timedOut.metadata.retryable).toBe(true);

    const fork = await settled(hostile.fork);
    expect(fork.status.state).toBe('completed');

    // The second hang waited behind the first in its agent's queue; cancel it wherever it is now.
    const canceled = await tb.rpc('tasks/cancel', { id: hangCanceled });
    expect(canceled.result?.status.state ?? (await settled(hangCanceled)).status.state).toMatch(/canceled|failed/);

    // Every agent process the bridge started (its receipt names the pid), plus what the fixtures forked.
    const listed = await tb.rpc('tasks/list', { pageSize: 100 });
    const receiptPids = (listed.result.tasks as { metadata: { receipt?: { pid?: number } } }[]).flatMap((t) =>
      t.metadata.receipt?.pid ? [t.metadata.receipt.pid] : [],
    );
    expect(receiptPids.length).toBeGreaterThanOrEqual(9);
    const started = [...new Set([...receiptPids, ...pids('hang-'), ...pids('fork-')])];
    expect(pids('hang-').length).toBeGreaterThanOrEqual(1);
    expect(pids('fork-child-')).toHaveLength(1);
    await eventually(() => started.every((pid) => !isRunning(pid)));

    await tb.stop();
    const leaked = started.filter((pid) => isRunning(pid));
    console.info(`hostile figures: ${JSON.stringify({ processesChecked: started.length, leaked: leaked.length })}`);
    expect(leaked).toEqual([]);
  });
});
