/**
 * A reply cut short must say so in `metadata.truncated` (SECURITY.md), not only in a
 * receipt. A CLI agent's stdout past the backend's own cap used to show only `receipt.stdoutTruncated`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliBackend } from '../../main/backends/subprocess-cli/backend.js';
import { SubprocessCliAgentSchema } from '../../main/schema/config.js';
import { ECHO_AGENT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { Core } from '../runtime/core.js';
import { nodeFixture } from './attack-agents.js';

let core: Core | undefined;
let tb: TestBridge | undefined;
afterEach(async () => {
  await core?.close();
  await tb?.cleanup();
  core = undefined;
  tb = undefined;
});

const printer = (bytes: number) =>
  SubprocessCliAgentSchema.parse({
    kind: 'subprocess_cli',
    command: [process.execPath, '-e', `process.stdout.write('x'.repeat(${bytes}))`],
    append_decision_contract: false,
  });

describe('metadata.truncated', () => {
  it("records a cut made by the backend's own output cap", async () => {
    core = new Core();
    core.add(
      'big',
      new CliBackend({
        name: 'big',
        config: printer(5000),
        baseEnv: { PATH: process.env.PATH ?? '' },
        maxOutputBytes: 1000,
      }),
    );
    const task = await core.send('big', 'go', { blocking: true });
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]!.parts[0]).toMatchObject({ text: 'x'.repeat(1000) });
    expect(task.metadata.truncated).toEqual({ at: 1000, droppedBytes: 4000 });
    expect(task.metadata.receipt).toMatchObject({ stdoutTruncated: true, stdoutBytes: 5000 });
  });

  it('records the max_artifact_bytes cut, as served by tasks/get', async () => {
    tb = await startTestBridge({
      agents: { echo: nodeFixture(ECHO_AGENT) },
      config: { max_artifact_bytes: 100 },
      isolatedEnv: true,
    });
    const sent = await tb.rpc('message/send', { agent: 'echo', text: 'y'.repeat(500) });
    const got = await tb.rpc('tasks/get', { id: sent.result.id });
    expect(got.result.metadata.truncated).toEqual({ at: 100, droppedBytes: expect.any(Number) });
    expect(got.result.metadata.truncated.droppedBytes).toBeGreaterThan(300);
  });
});
