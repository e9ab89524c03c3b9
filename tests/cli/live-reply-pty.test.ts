/**
 * `send` and `answer` on a terminal show the reply as the agent streams it, as `watch` does: the real CLI in
 * a pseudo-terminal, its screen rendered by xterm.js. The agent (tests/fixtures/acp/fake-agent.mjs
 * gated-reply) streams its first words and finishes only once the test writes a file, so the words on screen
 * while the task is still working prove they came before the end, with no clock involved. Piped, the output
 * stays the whole reply at the end.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { waitForState } from '../helpers/wait.js';
import { bridgeEnv, CLI, runCli } from './run-cli.js';
import { startOnPty, type PtyScreen } from './top/pty-screen.js';

const REPLY = 'first words of the reply, and the rest.';

let bridge: TestBridge;
let env: Record<string, string>;
let dir: string;
const screens: PtyScreen[] = [];

beforeAll(async () => {
  dir = tempDir();
  bridge = await startTestBridge({ agents: { talker: fakeAcpAgent() } });
  env = bridgeEnv(bridge, { CI: undefined });
});
afterEach(() => {
  for (const s of screens.splice(0)) s.kill();
});
afterAll(() => bridge?.cleanup());

const state = async (id: string): Promise<string> =>
  ((await bridge.rpc('tasks/get', { id })).result as { status: { state: string } }).status.state;

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

function onPty(args: string[]): PtyScreen {
  const s = startOnPty(process.execPath, [CLI, ...args], { env, cols: 200 });
  screens.push(s);
  return s;
}

describe('the reply as it streams, on a terminal', () => {
  it('send: the first words while the task works, then the rest, the reply shown once, exit 0', async () => {
    const release = path.join(dir, 'send-done');
    const s = onPty(['send', 'talker', `gated-reply ${release}`]);
    const screen = await s.shows('first words of the reply');
    const id = /task (\S+) /.exec(screen)![1]!;
    expect(screen).toMatch(new RegExp(`task ${id} \\[submitted\\] → \\[working\\] \\d+s\\nfirst words of the reply`));
    expect(await state(id)).toBe('working');
    writeFileSync(release, '');
    const exit = await s.exited;
    const end = await s.shows(REPLY);
    expect(occurrences(end, 'first words')).toBe(1);
    expect(end).toMatch(new RegExp(`${REPLY}\\n\\[completed\\] \\d+\\.\\ds\\n`));
    expect(exit.exitCode).toBe(0);
  });

  it('answer: the words after the answer while the task works, then the rest, once, exit 0', async () => {
    const release = path.join(dir, 'answer-done');
    const sent = await bridge.rpc('message/send', {
      agent: 'talker',
      text: `gated-reply ${release} ask`,
      configuration: { blocking: false },
    });
    const id = (sent.result as { id: string }).id;
    await waitForState(bridge, id, 'input-required');
    const s = onPty(['answer', id, 'yes']);
    await s.shows('first words of the reply');
    expect(await state(id)).toBe('working');
    writeFileSync(release, '');
    const exit = await s.exited;
    const end = await s.shows(', and the rest.');
    expect(occurrences(end, 'first words')).toBe(1);
    expect(end).toMatch(/first words of the reply, and the rest\.\n\[completed\] \d+\.\ds\n/);
    expect(exit.exitCode).toBe(0);
  });
});

describe('a reply cut by a failure, on a terminal', () => {
  // The words streamed before the agent crashed are the partial reply the failed task keeps: shown once (not
  // printed again after the failure) and still said to be partial.
  it('send: the words once, then the failure saying the reply above is partial, exit 1', async () => {
    const s = onPty(['send', 'talker', 'crash']);
    const exit = await s.exited;
    const end = await s.shows('the reply above is what the agent wrote before it failed');
    expect(occurrences(end, 'about to crash')).toBe(1);
    expect(end).toMatch(/about to crash\n\[failed\] \d+\.\ds\ntask \S+ failed: /);
    expect(end.indexOf('the reply above')).toBeGreaterThan(end.indexOf(' failed: '));
    expect(exit.exitCode).toBe(1);
  });
});

describe('piped', () => {
  it('send prints the whole reply at the end, as before: stdout the reply, stderr the task id', async () => {
    const release = path.join(dir, 'piped-done');
    writeFileSync(release, '');
    const run = await runCli(['send', 'talker', `gated-reply ${release}`], { env });
    expect(run.stdout).toBe(`${REPLY}\n`);
    expect(run.stderr).toMatch(/^task \S+\n$/);
    expect(run.code).toBe(0);
  });
});
