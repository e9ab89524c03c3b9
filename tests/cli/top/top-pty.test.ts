/**
 * `contactor top` as a person uses it: the real CLI (bin/contactor.js → out/cli) in a pseudo-terminal, its
 * screen rendered by a terminal emulator, against a real bridge (temp HOME, port 0) with real agents: the
 * fake ACP agent (streams until canceled) and the demo echo agent (asks a decision). The table shows the
 * task and its live output, a question is answered by typing and Enter only, a task is canceled after
 * confirming, and q or Ctrl+C give the terminal back as it was.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../../helpers/bridge.js';
import { waitForState } from '../../helpers/wait.js';
import { deriveAgentToken } from '../../../main/transport/caller-tokens.js';
import { bridgeEnv, CLI, closedPort, runCli } from '../run-cli.js';
import { KEY, startOnPty, type PtyScreen } from './pty-screen.js';

let bridge: TestBridge;
let env: Record<string, string>;
const screens: PtyScreen[] = [];

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { fake: fakeAcpAgent(), echo: echoAgent() } });
  // CI=true would make Ink draw only its last frame; a person's terminal has no CI.
  env = bridgeEnv(bridge, { CI: undefined });
});
afterEach(() => {
  for (const s of screens.splice(0)) s.kill();
});
afterAll(() => bridge?.cleanup());

function top(args: string[] = [], opts: { cols?: number; rows?: number; entry?: string } = {}): PtyScreen {
  const screen = startOnPty(process.execPath, [opts.entry ?? CLI, 'top', ...args], { env, ...opts });
  screens.push(screen);
  return screen;
}

async function send(agent: string, text: string): Promise<string> {
  const res = await bridge.rpc('message/send', { agent, text, configuration: { blocking: false } });
  expect(res.error).toBeUndefined();
  return res.result.id as string;
}

/** The table line of one task (its id is not shown: find it by its brief or output). */
function lineWith(screen: string, text: string): string {
  return screen.split('\n').find((l) => l.includes(text)) ?? '';
}

describe('contactor top in a terminal', () => {
  it('with no bridge running: how to start one, as every verb says, not [reconnecting…] forever', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const screen = startOnPty(process.execPath, [CLI, 'top'], { env: { ...env, CONTACTOR_URL: url } });
    screens.push(screen);
    expect((await screen.exited).exitCode).toBe(5);
    // The last output can reach the emulator after the exit: wait for the screen, not the exit.
    await screen.shows(`contactor: no bridge running at ${url} (ECONNREFUSED); start it with \`contactor up\``);
  });

  it('shows the task live, cancels it after y, and q gives the terminal back', async () => {
    const id = await send('fake', 'stream');
    const s = top();
    await s.shows('person → fake');
    await s.shows((screen) => /running .*person → fake .*tick \d+/.test(screen), 'the running task with its output');
    // Live: the last line moves on while the screen stays up.
    const first = /tick (\d+)/.exec(lineWith(s.text(), 'person → fake'))![1]!;
    await s.shows((screen) => {
      const now = /tick (\d+)/.exec(lineWith(screen, 'person → fake'))?.[1];
      return now !== undefined && Number(now) > Number(first);
    }, 'a later tick');
    expect(s.text()).toMatch(/AGENT\s+RUNNING\s+WAITING\s+QUESTIONS/);
    expect(s.text()).toMatch(/fake\s+1\s+0\s+0/);

    // c asks first; Enter keeps the task running.
    s.type('c');
    await s.shows('y: cancel it');
    s.type(KEY.enter);
    await s.shows((screen) => !screen.includes('y: cancel it'), 'the question to go away');
    expect((await bridge.rpc('tasks/get', { id })).result.status.state).toBe('working');

    s.type('c');
    await s.shows('y: cancel it');
    s.type('y');
    await waitForState(bridge, id, 'canceled');
    await s.shows((screen) => /canceled .*person → fake/.test(screen), 'the canceled task');

    s.type('q');
    expect((await s.exited).exitCode).toBe(0);
    // The last output can reach the emulator after the exit: wait until it has left the alternate screen.
    await s.shows(() => s.term.buffer.active.type === 'normal', 'the normal screen back');
    const raw = s.raw();
    // The alternate screen was entered and left again, the cursor hidden and shown again.
    expect(raw.lastIndexOf('\u001b[?1049l')).toBeGreaterThan(raw.lastIndexOf('\u001b[?1049h'));
    expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThan(raw.lastIndexOf('\u001b[?25l'));
  });

  it('answers a question only after `a`, a typed answer and Enter; a number out of range is refused', async () => {
    const id = await send('echo', 'pick a format. decide: YAML|TOML');
    const s = top();
    await s.shows((screen) => /asks you .*person → echo/.test(screen), 'the question in the table');
    // Keys that approve elsewhere only say how answering works, one at a time as a person types them.
    for (const [key, said] of [
      ['y', '"y" does nothing here'],
      ['1', '"1" does nothing here'],
      [' ', 'Space does nothing here'],
    ]) {
      s.type(key!);
      await s.shows(said!);
    }
    // Enter follows the task: its question with the numbered options.
    s.type(KEY.enter);
    await s.shows('question: ');
    await s.shows('2. TOML');
    s.type('y');
    await s.shows('"y" does nothing here');
    s.type(KEY.enter);
    await s.shows('Enter does nothing here');
    expect((await bridge.rpc('tasks/get', { id })).result.status.state).toBe('input-required');

    // Typed as a person types: each key once the screen has shown the one before.
    s.type('a');
    await s.shows('answer ›');
    s.type('5');
    await s.shows('answer › 5');
    s.type(KEY.enter);
    await s.shows('there is no option 5: choose 1-2');
    expect((await bridge.rpc('tasks/get', { id })).result.status.state).toBe('input-required');
    s.type(KEY.backspace);
    await s.shows((screen) => /answer › +Enter: send/.test(screen), 'the answer line empty again');
    s.type('2');
    await s.shows('answer › 2');
    s.type(KEY.enter);
    const task = await waitForState(bridge, id, 'completed');
    expect(JSON.stringify(task.artifacts)).toContain('Going with TOML. Done.');
    await s.shows('Going with TOML. Done.');
    expect(task.metadata.answeredBy).toMatch(/^person/);

    s.type(KEY.esc);
    await s.shows('CALLER → AGENT');
    s.type(KEY.ctrlC);
    expect((await s.exited).exitCode).toBe(0);
    await s.shows(() => s.term.buffer.active.type === 'normal', 'the normal screen back');
  });

  it("an agent's escape sequences show as text: no title, no clipboard, no cleared screen, no hidden words", async () => {
    // The echo agent replies with what it was sent: a title change, a screen clear, a clipboard write and
    // concealed text (SGR 8), which would hide words of a reply or a question from the person reading it.
    const id = await send(
      'echo',
      'evil \u001b]2;PWNED\u0007 \u001b[2J \u001b]52;c;cHduZWQ=\u0007 \u001b[8mhidden\u001b[0m end',
    );
    const task = await waitForState(bridge, id, 'completed');
    // The bridge keeps the reply as the agent wrote it: the sequences reach the screen's data.
    expect(JSON.stringify(task.artifacts)).toContain('\\u001b[8mhidden');
    const s = top();
    await s.shows((screen) => /completed .*person → echo .*evil .*hidden/.test(screen), 'the reply, all of it visible');
    s.type(KEY.enter);
    await s.shows((screen) => /^echo: evil .*hidden/m.test(screen), "the reply in the followed task's pane");
    expect(s.titles).not.toContain('PWNED');
    for (const sequence of ['\u001b]2;PWNED', '\u001b[2J', '\u001b]52;', '\u001b[8m'])
      expect(s.raw()).not.toContain(sequence);
    s.type('q');
    await s.exited;
  });

  it("an agent's escape sequences inside the bridge's refusal of an answer show as text", async () => {
    // The refusal of "5." (a number no option has) lists the options, which are the agent's words.
    const id = await send('echo', 'pick one. decide: \u001b]2;PWNED\u0007 \u001b]52;c;cHduZWQ=\u0007 YAML|TOML');
    await waitForState(bridge, id, 'input-required');
    const s = top();
    await s.shows((screen) => /asks you .*person → echo/.test(screen), 'the question in the table');
    s.type(KEY.enter);
    await s.shows('2. TOML');
    s.type('a');
    await s.shows('answer ›');
    for (const key of ['5', '.']) s.type(key);
    await s.shows('answer › 5.');
    s.type(KEY.enter);
    await s.shows(
      (screen) => /there is no option 5\.: choose 1-2 \(1\. ␛\]2;PWNED␇/.test(screen),
      'the refusal, marked',
    );
    expect(s.titles).not.toContain('PWNED');
    for (const sequence of ['\u001b]2;PWNED', '\u001b]52;']) expect(s.raw()).not.toContain(sequence);
    s.type(KEY.esc);
    s.type(KEY.ctrlC);
    await s.exited;
    await bridge.rpc('tasks/cancel', { id });
  });

  it('fits a narrow terminal and redraws on resize', async () => {
    await send('echo', 'narrow please');
    const s = top([], { cols: 50, rows: 20 });
    // The output column keeps the end of the line: what is being written now.
    await s.shows('…ow please');
    expect(Math.max(...s.lines().map((l) => l.length))).toBeLessThanOrEqual(50);
    s.resize(110, 24);
    await s.shows((screen) => /BRIEF \/ LAST LINE/.test(screen), 'the wide columns after the resize');
    s.type('q');
    expect((await s.exited).exitCode).toBe(0);
  });

  it('restores cooked mode: after top, the shell reads lines again', async () => {
    const s = startOnPty('/bin/sh', ['-c', `"${process.execPath}" "${CLI}" top; stty -a`], { env });
    screens.push(s);
    await s.shows('CALLER → AGENT');
    s.type('q');
    await s.exited;
    // stty's lines can reach the pty reader after the exit.
    const afterTop = (): string => s.raw().slice(s.raw().lastIndexOf('\u001b[?1049l'));
    await s.shows(() => /speed/.test(afterTop()), "stty's settings after top");
    const after = afterTop();
    expect(after).toMatch(/(^|\s)icanon(\s|;)/);
    expect(after).toMatch(/(^|\s)echo(\s|;)/);
  });

  it('the desktop CLI (CommonJS) loads the screen from top.mjs beside it', async () => {
    const entry = path.join(REPO_ROOT, 'out', 'cli', 'contactor.cjs');
    expect(existsSync(path.join(REPO_ROOT, 'out', 'cli', 'top.mjs'))).toBe(true);
    await send('echo', 'from the desktop cli');
    const s = top([], { entry });
    await s.shows('from the desktop cli');
    s.type('q');
    expect((await s.exited).exitCode).toBe(0);
  });
});

describe('contactor top without a terminal', () => {
  it('--json prints one activity/snapshot document', async () => {
    const id = await send('echo', 'json snapshot please');
    await waitForState(bridge, id, 'completed');
    const run = await runCli(['top', '--json'], { env });
    expect(run.code).toBe(0);
    const snap = run.json<{ cursor: string; rows: { taskId: string; brief: string; state: string }[] }>();
    expect(snap.cursor).toMatch(/^[0-9a-f]+:\d+$/);
    expect(snap.rows.find((r) => r.taskId === id)).toMatchObject({ brief: 'json snapshot please', state: 'completed' });
  });

  it('piped, it prints the table once', async () => {
    const run = await runCli(['top'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/AGENT\s+RUNNING\s+WAITING\s+QUESTIONS/);
    expect(run.stdout).toMatch(/TASK\s+STATE\s+FOR\s+CALLER → AGENT/);
  });

  it("an agent's token may not watch every task", async () => {
    const run = await runCli(['top', '--json'], { env: { ...env, CONTACTOR_TOKEN: agentToken() } });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('-32066');
  });
});

/** The token the bridge gives the echo agent in CONTACTOR_TOKEN when it starts it. */
function agentToken(): string {
  return deriveAgentToken(bridge.token, 'echo');
}
