/** `send`, `get`, `answer`, `cancel`, `watch`, `pending`, `tasks` against a real bridge, through the real CLI. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fixtureAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli, workDir } from './run-cli.js';

interface Task {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: { text: string }[] } };
  artifacts: { parts: { kind: string; text?: string }[] }[];
  metadata: Record<string, unknown>;
}

let bridge: TestBridge;
let env: Record<string, string>;
const cli = (args: string[], input?: string) => runCli(args, { env, ...(input !== undefined ? { input } : {}) });

beforeAll(async () => {
  bridge = await startTestBridge({
    agents: {
      echo: echoAgent(),
      broken: fixtureAgent('exit-code.mjs', { prompt_via: 'arg', prompt_flag: ['7', 'disk on fire'] }),
      sleepy: fixtureAgent('sleeper.mjs'),
      slowpoke: fixtureAgent('sleeper.mjs', { timeout_s: 0.3 }),
      plain: fixtureAgent('echo-stdin.mjs'),
      asking: fixtureAgent('echo-stdin.mjs', { append_decision_contract: true }),
      files: fixtureAgent('read-attachments.mjs'),
    },
  });
  env = bridgeEnv(bridge);
});
afterAll(() => bridge?.cleanup());

describe('contactor send', () => {
  it('prints the reply of a completed task and exits 0', async () => {
    const run = await cli(['send', 'echo', 'hello there']);
    expect(run.stdout).toBe('echo: hello there\n');
    expect(run.code).toBe(0);
  });

  it('--json prints exactly one parseable document: the task', async () => {
    const run = await cli(['send', 'echo', 'hi', '--json']);
    expect(run.code).toBe(0);
    const task = run.json<Task>();
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]!.parts[0]!.text).toBe('echo: hi\n');
  });

  it('reads the brief from stdin with "-"', async () => {
    const run = await cli(['send', 'echo', '-'], 'brief from a file\nline two');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo: brief from a file\nline two');
  });

  it('says so when there is nothing to send', async () => {
    const run = await cli(['send', 'echo', '-'], '  \n');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nothing to send');
  });

  it('the agent name forgotten: the brief was taken as an agent name, and the agents are listed', async () => {
    const run = await cli(['send', 'hello world'], '');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'contactor: no brief: "hello world" was taken as the agent name; give the agent first: contactor send <agent> "<brief>" (agents: echo, broken, sleepy, slowpoke, plain, asking, files)\n',
    );
  });

  it('--message-id is idempotent: the same id returns the same task; other text under it is a conflict', async () => {
    const first = (await cli(['send', 'echo', 'once', '--message-id', 'idem-1', '--json'])).json<Task>();
    const again = await cli(['send', 'echo', 'once', '--message-id', 'idem-1', '--json']);
    expect(again.code).toBe(0);
    expect(again.json<Task>().id).toBe(first.id);
    const conflict = await cli(['send', 'echo', 'twice', '--message-id', 'idem-1']);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain('-32061');
  });

  it('an unknown agent is bad usage (exit 2) and the message lists the agents', async () => {
    const run = await cli(['send', 'nobody', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no agent named "nobody".*echo/);
    expect(run.stdout).toBe('');
  });

  it('a failed task exits 1 with the reason and whether a retry can help', async () => {
    const run = await cli(['send', 'broken', 'go']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed.*7/);
    expect(run.stderr).toContain('same input gives the same failure');
  });

  it('a timed-out task says one thing: re-send under a new messageId; a replay returns the stored failure', async () => {
    const run = await cli(['send', 'slowpoke', 'wait', '--message-id', 'timeout-1', '--json']);
    expect(run.code).toBe(1);
    const task = run.json<Task>();
    expect(task.metadata.retryable).toBe(true);
    const reason = task.status.message!.parts[0]!.text;
    expect(reason).toContain('timed out after 0.3s');
    expect(reason).toContain('re-send under a new messageId');
    expect(reason).not.toMatch(/retry with the same messageId/);

    const replay = await cli(['send', 'slowpoke', 'wait', '--message-id', 'timeout-1']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(`task ${task.id} failed: timed out after 0.3s`);
    // The advice once: the reason already says how to retry, so no second line repeats it.
    expect(replay.stderr.match(/re-send under a new/g)).toHaveLength(1);
  });

  it('a plain command gets the request as written: no decision contract unless its config asks', async () => {
    const plain = await cli(['send', 'plain', 'make this upper case']);
    expect(plain.stdout).toBe('make this upper case\n');
    expect(plain.code).toBe(0);
    const asking = await cli(['send', 'asking', 'make this upper case']);
    expect(asking.stdout).toContain('[[NEEDS_DECISION]]');
    expect(asking.code).toBe(0);
  });

  it('agents says which agents can ask, and for a CLI that cannot, the config key that lets it', async () => {
    const run = await cli(['agents']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^plain\s+subprocess_cli\s+one piece\s+no \(add append_decision_contract: true\)\s+yes\s/m,
    );
    expect(run.stdout).toMatch(/^asking\s+subprocess_cli\s+one piece\s+yes\s+yes\s/m);
  });

  it("a CLI agent's card: words, traits and behaviour agree (one-piece reply, cancel stops it, asks only with the contract)", async () => {
    const card = async (name: string) => {
      const res = await fetch(`${bridge.url}/agents/${name}/.well-known/agent-card.json`);
      return (await res.json()) as {
        description: string;
        capabilities: { streaming: boolean; extensions: { params: Record<string, unknown> }[] };
      };
    };
    const plain = await card('plain');
    expect(plain.capabilities.streaming).toBe(true);
    expect(plain.description).toContain('the reply arrives in one piece');
    expect(plain.description).not.toMatch(/no streaming/);
    expect(plain.description).toContain('cancel stops its work mid-run');
    expect(plain.description).toContain('Never asks');
    expect(plain.description).not.toContain('asks only for decisions');
    expect(plain.capabilities.extensions[0]!.params).toMatchObject({ interruptible: true, inputRequired: false });
    expect((await card('asking')).capabilities.extensions[0]!.params).toMatchObject({ inputRequired: true });

    // interruptible: cancel really stops the running process (the sleeper never ends by itself).
    const sent = await cli(['send', 'sleepy', 'nap', '--no-wait']);
    const id = sent.stdout.trim();
    expect((await cli(['cancel', id])).code).toBe(0);
    expect((await cli(['get', id, '--json'])).json<Task>().status.state).toBe('canceled');
  });

  it('attaches --file contents', async () => {
    const file = path.join(workDir(bridge), 'notes.txt');
    writeFileSync(file, 'attached content');
    const run = await cli(['send', 'files', 'read it', '--file', file, '--json']);
    expect(run.code).toBe(0);
    const reply = JSON.parse(run.json<Task>().artifacts[0]!.parts[0]!.text!) as {
      files: Record<string, string | null>;
    };
    expect(Object.values(reply.files)).toContain('attached content');
    const missing = await cli(['send', 'files', 'x', '--file', path.join(workDir(bridge), 'nope.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read --file');
  });
});

describe('questions: send → exit 3 → pending → answer', () => {
  it('prints the question and how to answer, lists it in pending, and answer follows to the result', async () => {
    const asked = await cli(['send', 'echo', 'decide: YAML|TOML']);
    expect(asked.code).toBe(3);
    const id = /contactor answer (\S+)/.exec(asked.stdout)?.[1];
    expect(id).toBeDefined();
    expect(asked.stdout).toContain('1. YAML');
    expect(asked.stdout).toMatch(/YAML\s+← recommended/);

    const [pending, listed] = await Promise.all([cli(['pending', '--json']), cli(['pending'])]);
    expect(pending.code).toBe(0);
    const open = pending.json<{ tasks: Task[] }>().tasks;
    expect(open.map((t) => t.id)).toContain(id);
    expect(listed.stdout).toContain(`contactor answer ${id}`);

    const answered = await cli(['answer', id!, '2.']);
    expect(answered.stdout).toBe('Going with TOML. Done.\n');
    expect(answered.code).toBe(0);
    const again = await cli(['answer', id!, '1']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already answered');
  });

  it('a number outside 1..N is refused with the options listed (exit 2); --text sends it as free text', async () => {
    const asked = await cli(['send', 'echo', 'decide: YAML|TOML', '--json']);
    const id = asked.json<Task>().id;
    const wrong = await cli(['answer', id, '5']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('there is no option 5: choose 1-2 (1. YAML; 2. TOML)');
    expect(wrong.stderr).toContain('[-32602]');
    expect((await cli(['get', id, '--json'])).json<Task>().status.state).toBe('input-required');
    // Shaped like a number is a number: "-1" is not passed on as the text "-1".
    const negative = await cli(['answer', id, '--', '-1']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('there is no option -1: choose 1-2');
    expect((await cli(['get', id, '--json'])).json<Task>().status.state).toBe('input-required');

    const free = await cli(['answer', id, '5', '--text']);
    expect(free.stdout).toBe('Going with 5. Done.\n');
    expect(free.code).toBe(0);
  });

  it('tasks/answer over HTTP: -32602 for an out-of-range number, freeText: true takes it as given', async () => {
    const asked = await cli(['send', 'echo', 'decide: tabs|spaces', '--json']);
    const id = asked.json<Task>().id;
    const rpc = async (params: Record<string, unknown>) => {
      const res = await fetch(`${bridge.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/answer', params }),
      });
      return (await res.json()) as { error?: { code: number; message: string }; result?: Task };
    };
    const refused = await rpc({ taskId: id, answer: 3 });
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toContain('1. tabs; 2. spaces');
    const inRange = await rpc({ taskId: id, answer: '3', freeText: true });
    expect(inRange.error).toBeUndefined();
    expect(inRange.result?.metadata.lastAnswer).toMatchObject({ choice: '3', freeText: true });
  });
});

describe('one task by id', () => {
  it('--no-wait returns the id at once; get, cancel and watch report the canceled task (exit 4)', async () => {
    const sent = await cli(['send', 'sleepy', 'nap', '--no-wait']);
    expect(sent.code).toBe(0);
    const id = sent.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const running = await cli(['get', id, '--json']);
    expect(['submitted', 'working']).toContain(running.json<Task>().status.state);

    const canceled = await cli(['cancel', id]);
    expect(canceled.code).toBe(0);
    expect(canceled.stdout).toContain('canceled');
    const got = await cli(['get', id]);
    expect(got.code).toBe(4);
    expect(got.stderr).toContain('canceled');
    const watched = await cli(['watch', id]);
    expect(watched.code).toBe(4);
    const twice = await cli(['cancel', id]);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toBe(`task ${id} was already canceled\n`);
  });

  it('cancel of a task that had already completed says so and exits 2: nothing was canceled', async () => {
    const id = (await cli(['send', 'echo', 'quick', '--json'])).json<Task>().id;
    const late = await cli(['cancel', id]);
    expect(late.stderr).toBe(`contactor: task ${id} had already completed; nothing to cancel\n`);
    expect(late.stdout).toBe('');
    expect(late.code).toBe(2);
  });

  it('get of an unknown task is exit 2', async () => {
    const run = await cli(['get', 'no-such-task']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('-32001');
  });

  it('--timeout gives up waiting (exit 1) and says how to follow the task', async () => {
    // Long enough for the bridge to have answered with the task (the hint needs its id) on a loaded machine or
    // under Wine; the sleeper never finishes, so the wait always gives up.
    const run = await cli(['send', 'sleepy', 'long nap', '--timeout', '3']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/gave up waiting.*contactor watch/);
    const id = /watch (\S+)`/.exec(run.stderr)![1]!;
    await cli(['cancel', id]);
  });

  it('tasks lists recent tasks with filters', async () => {
    const run = await cli(['tasks', '--agent', 'echo', '--limit', '2', '--json']);
    expect(run.code).toBe(0);
    const page = run.json<{ tasks: Task[] }>();
    expect(page.tasks).toHaveLength(2);
    expect(page.tasks.every((t) => t.metadata.agent === 'echo')).toBe(true);
    const human = await cli(['tasks', '--state', 'canceled']);
    expect(human.stdout).toContain('sleepy');
    const bad = await cli(['tasks', '--state', 'sleeping']);
    expect(bad.code).toBe(2);
  });
});
