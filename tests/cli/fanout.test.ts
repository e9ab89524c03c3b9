/** `contactor send --all | --agents | --capability`: one brief to several agents through agents/orchestrate. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fixtureAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli } from './run-cli.js';

let bridge: TestBridge;
let env: Record<string, string>;
const cli = (args: string[]) => runCli(args, { env });

beforeAll(async () => {
  bridge = await startTestBridge({
    agents: {
      one: echoAgent({ tags: ['review'] }),
      two: echoAgent({ tags: ['review'] }),
      broken: fixtureAgent('exit-code.mjs', { prompt_via: 'arg', prompt_flag: ['7', 'no luck'] }),
    },
  });
  env = bridgeEnv(bridge);
});
afterAll(() => bridge?.cleanup());

describe('contactor send fan-out', () => {
  it('--agents sends to each named agent and prints every result side by side', async () => {
    const run = await cli(['send', '--agents', 'one,two', 'look at this']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('── one [completed]');
    expect(run.stdout).toContain('── two [completed]');
    expect(run.stdout.match(/echo: look at this/g)).toHaveLength(2);
  });

  it('--capability picks agents by tag; --json prints the one orchestration document', async () => {
    const run = await cli(['--json', 'send', '--capability', 'review', 'tagged work']);
    expect(run.code).toBe(0);
    const doc = run.json<{ mode: string; results: { agent: string; state: string }[] }>();
    expect(doc.mode).toBe('all');
    expect(doc.results.map((r) => r.agent).sort()).toEqual(['one', 'two']);
  });

  it('--all includes an agent that fails, and the exit code says so', async () => {
    const run = await cli(['send', '--all', 'everyone']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('── broken [failed]');
  });

  it('--all with --capability narrows the fan-out', async () => {
    const run = await cli(['--json', 'send', '--all', '--capability', 'review', 'narrowed']);
    expect(run.json<{ results: { agent: string }[] }>().results).toHaveLength(2);
  });

  it('--mode first names a winner', async () => {
    const run = await cli(['--json', 'send', '--agents', 'one,two', '--mode', 'first', 'race']);
    expect(run.code).toBe(0);
    expect(['one', 'two']).toContain(run.json<{ winner: string }>().winner);
  });

  it('refuses an agent name next to --all, and a missing agent without fan-out', async () => {
    expect((await cli(['send', '--all', 'one', 'text'])).code).toBe(2);
    const none = await cli(['send']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('which agent?');
  });
});
