/**
 * Delegation context without cooperation (docs/contract.md#agent-environment): an agent that runs
 * `contactor send` passes on the chain from its environment, so A → B → A is rejected as a loop instead
 * of dead-locking A's queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationFromEnv } from '../../main/cli/delegation-env.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, cliFixtureAgent, runCli } from './run-cli.js';

interface Report {
  agent: string;
  exit: number;
  state?: string;
  reason?: string;
  reply?: string;
}

describe('delegationFromEnv', () => {
  it('derives caller, parent, depth + 1 and visited agents from the bridge-set variables', () => {
    expect(
      delegationFromEnv({
        CONTACTOR_AGENT: 'alpha',
        CONTACTOR_TASK_ID: 't1',
        CONTACTOR_DEPTH: '1',
        CONTACTOR_VISITED: 'root,alpha',
      }),
    ).toEqual({ callerAgent: 'alpha', parentTaskId: 't1', delegationDepth: 2, visitedAgents: ['root', 'alpha'] });
    expect(delegationFromEnv({ CONTACTOR_AGENT: 'alpha' })).toEqual({ callerAgent: 'alpha' });
    expect(delegationFromEnv({})).toEqual({});
  });
});

describe('the loop guard across real hops', () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({
      agents: {
        alpha: cliFixtureAgent('delegate.mjs', ['beta']),
        beta: cliFixtureAgent('delegate.mjs', ['alpha']),
        echo: echoAgent(),
      },
    });
  });
  afterAll(() => bridge?.cleanup());

  it('alpha → beta → alpha: the inner send is rejected (exit 4) and both outer tasks complete', async () => {
    const run = await runCli(['send', 'alpha', 'start the chain', '--json'], { env: bridgeEnv(bridge) });
    expect(run.code).toBe(0);
    const alpha = JSON.parse(
      run.json<{ artifacts: { parts: { text: string }[] }[] }>().artifacts[0]!.parts[0]!.text,
    ) as Report;
    expect(alpha).toMatchObject({ agent: 'alpha', exit: 0, state: 'completed' });
    const beta = JSON.parse(alpha.reply!) as Report;
    expect(beta).toMatchObject({ agent: 'beta', exit: 4, state: 'rejected' });
    expect(beta.reason).toContain('delegation loop');
  });

  it('send passes CONTACTOR_VISITED and CONTACTOR_DEPTH on even without CONTACTOR_AGENT', async () => {
    const inChain = { CONTACTOR_TASK_ID: 'outer-task', CONTACTOR_DEPTH: '0', CONTACTOR_VISITED: 'echo' };
    const loop = await runCli(['send', 'echo', 'hi'], { env: bridgeEnv(bridge, inChain) });
    expect(loop.code).toBe(4);
    expect(loop.stderr).toContain('delegation loop');
    const deep = await runCli(['send', 'echo', 'hi'], {
      env: bridgeEnv(bridge, { ...inChain, CONTACTOR_VISITED: 'root', CONTACTOR_DEPTH: '2' }),
    });
    expect(deep.code).toBe(4);
    expect(deep.stderr).toContain('delegation too deep');
  });
});
