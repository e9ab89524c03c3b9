/**
 * What a person reads (SECURITY.md#what-a-person-reads), as an attacker would try it: an agent asks permission
 * for `rm -rf ~/work` followed by CR and cursor sequences that erase that line and the one above and draw
 * `command: ls -la` in its place. Every CLI verb that shows agent text runs for real (bin/contactor.js) in a
 * pseudo-terminal, its screen rendered by xterm.js: the real command is on screen, with what tried to hide it
 * shown as marks (`␍␛[2K`), never obeyed.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { waitForState } from '../helpers/wait.js';
import { bridgeEnv, CLI } from './run-cli.js';
import { startOnPty, type PtyScreen } from './top/pty-screen.js';

const ATTACK = 'rm -rf ~/work \r\u001b[2K\u001b[1A\u001b[2K    command: ls -la';
/** How the attack reads on screen: the same text, its controls as marks (domain/visible-text.ts). */
const SHOWN = 'rm -rf ~/work ␍␛[2K␛[1A␛[2K    command: ls -la';
const FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'security', 'hostile-text-acp.mjs');

function hostile(extra: string[] = []): Record<string, unknown> {
  return {
    kind: 'acp',
    command: [process.execPath, FIXTURE, `--attack=${Buffer.from(ATTACK).toString('base64')}`, ...extra],
    append_decision_contract: false,
    timeout_s: TEST_TIMEOUT_MS / 1000,
  };
}

let bridge: TestBridge;
let env: Record<string, string>;
const screens: PtyScreen[] = [];

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { hostile: hostile(), broken: hostile(['--exit-on-start']) } });
  env = bridgeEnv(bridge, { CI: undefined });
});
afterEach(() => {
  for (const s of screens.splice(0)) s.kill();
});
afterAll(() => bridge?.cleanup());

/** Runs `contactor <args>` in a terminal 200 columns wide and returns the screen once it has exited. */
async function screenOf(args: string[], until: string): Promise<string> {
  const s = startOnPty(process.execPath, [CLI, ...args], { env, cols: 200, rows: 60 });
  screens.push(s);
  await s.exited;
  return s.shows(until, `\`contactor ${args.join(' ')}\` to show ${JSON.stringify(until)}`);
}

async function askingTask(): Promise<string> {
  const res = await bridge.rpc('message/send', { agent: 'hostile', text: 'go', configuration: { blocking: false } });
  expect(res.error).toBeUndefined();
  const id = res.result.id as string;
  await waitForState(bridge, id, 'input-required');
  return id;
}

describe('agent text through every CLI verb, in a terminal', () => {
  it('send, pending, get and watch show the command that would run, on its line, marks and all', async () => {
    const sent = await screenOf(['send', 'hostile', 'go'], 'answer:');
    expect(sent).toContain(`    command: ${SHOWN}\n`);
    expect(sent).toMatch(/hostile asks permission \(task [^)]*\): rm -rf ~\/work ␍␛\[2K␛\[1A␛\[2K {4}command: ls -la/);

    const id = await askingTask();
    for (const verb of [['pending'], ['get', id], ['watch', id]]) {
      const screen = await screenOf(verb, `contactor answer ${id}`);
      const question = screen.slice(screen.indexOf(`(task ${id},`));
      expect(question, verb.join(' ')).toMatch(/^\(task [^)]*\): rm -rf ~\/work ␍␛\[2K␛\[1A␛\[2K {4}command: ls -la/);
      expect(question, verb.join(' ')).toContain(`\n    command: ${SHOWN}\n`);
    }
  });

  it("the CLI's own colours still colour, on a terminal with colours", async () => {
    await askingTask();
    const s = startOnPty(process.execPath, [CLI, 'pending'], {
      env: bridgeEnv(bridge, { CI: undefined, NO_COLOR: undefined }),
      cols: 200,
      rows: 60,
    });
    screens.push(s);
    await s.exited;
    const screen = await s.shows('answer:');
    expect(screen).toContain(`    command: ${SHOWN}\n`);
    expect(screen).not.toMatch(/␛\[\d+m/);
    expect(s.raw()).toContain('\u001b[33mhostile asks permission\u001b[39m');
    expect(s.raw()).toContain('\u001b[1mcontactor answer ');
  });

  it('answer and get show the reply as written, its controls as marks', async () => {
    const id = await askingTask();
    const answered = await screenOf(['answer', id, 'yes'], 'allow:');
    expect(answered).toContain(`allow: ${SHOWN}`);
    await waitForState(bridge, id, 'completed');
    expect(await screenOf(['get', id], 'allow:')).toContain(`allow: ${SHOWN}`);
  });

  it("logs, audit and doctor show the agent's stderr and the question as text", async () => {
    await askingTask();
    expect(await screenOf(['logs', 'hostile', '-c', bridge.configPath], 'error:')).toContain(`error: ${SHOWN}`);
    // The audit line quotes the question (JSON escapes its C0 controls); the command is readable all the same.
    // Its lines are longer than the terminal: read them unwrapped.
    const audit = await screenOf(['audit', '-n', '50', '-c', bridge.configPath], 'task.input-required');
    expect(audit.replace(/\n/g, '')).toContain(
      'question="hostile asks permission: rm -rf ~/work \\r\\u001b[2K\\u001b[1A\\u001b[2K command: ls -la.',
    );

    // An agent that fails at start: the bridge kept its stderr, which doctor shows under the failed probe.
    const failed = await bridge.rpc('message/send', {
      agent: 'broken',
      text: 'go',
      configuration: { blocking: false },
    });
    await waitForState(bridge, failed.result.id as string, 'failed');
    const doctor = await screenOf(['doctor', '-c', bridge.configPath], 'broken');
    expect(doctor).toContain(`    stderr| error: ${SHOWN}\n`);
    expect(doctor).toMatch(/\n {4}log\| \S+ \[\d+\] error: rm -rf ~\/work ␍␛\[2K␛\[1A␛\[2K {4}command: ls -la\n/);
  });
});
