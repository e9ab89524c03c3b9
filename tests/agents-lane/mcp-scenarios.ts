/**
 * The real agent as an MCP client of the bridge's own `contactor mcp`, offered in its ACP session with
 * nothing to configure (docs/backends.md#contactor-mcp-in-every-session): its mock model calls contactor's
 * send_task (mock-script.ts `LANE: delegate`) and get_task, and the person answers through the bridge, as in
 * the lane's other scenarios. The callees are agents of the same bridge: the built-in echo agent (a CLI
 * agent) and `helper`, the fake ACP agent (tests/fixtures/acp/fake-agent.mjs: `permission` asks one, and its
 * sessions are kept on disk so a parked permission survives a restart, as a real agent's does).
 *
 * Its own bridge, after the other scenarios' one is stopped: the callees are agents of this bridge only.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent } from '../helpers/bridge.js';
import { AGENT_WAIT_MS, LaneBridge, replyText, type Wire } from './lane-bridge.js';
import { CACHE } from './install.js';
import { laneAgent, type LaneAgent, type LaneAgentName } from './lane-agents.js';
import { PLAIN_CLIS, runPlainCli } from './plain-mcp-clients.js';

const T = AGENT_WAIT_MS + 60_000;

/** The callees' budgets, as the lane agent's (lane-agents.ts): a loaded machine is slow for them too. */
const CALLEE_BUDGETS = { timeout_s: 300, approval_timeout_s: 900 };

interface Row {
  taskId: string;
  agent: string;
  caller: string;
  chain: string[];
  state: string;
}

/** `realCallee`: another lane agent in the same bridge, with its own mock, HOME and workspace, as a callee too. */
export function mcpScenarios(name: LaneAgentName, opts: { realCallee?: LaneAgentName } = {}): void {
  describe(`${name} delegates through contactor mcp`, () => {
    let b: LaneBridge;
    let sessions: string;
    let callee: { agent: LaneAgent; root: string; workspace: string } | undefined;
    beforeAll(async () => {
      sessions = mkdtempSync(path.join(tmpdir(), 'lane-helper-sessions-'));
      if (opts.realCallee) {
        // Beside the lane's runs, not in the temp folder: Codex's sandbox refuses a temp dir (lane-bridge.ts).
        mkdirSync(path.join(CACHE, 'runs'), { recursive: true });
        const root = realpathSync(mkdtempSync(path.join(CACHE, 'runs', `${opts.realCallee}-callee-`)));
        const workspace = path.join(root, 'workspace');
        mkdirSync(workspace);
        callee = { agent: await laneAgent(opts.realCallee, path.join(root, 'home'), workspace), root, workspace };
      }
      b = await LaneBridge.create(name, {
        echo: echoAgent(CALLEE_BUDGETS),
        helper: { ...fakeAcpAgent([`--session-dir=${sessions}`], CALLEE_BUDGETS), offer_mcp: false },
        ...(callee ? { [callee.agent.name]: callee.agent.entry } : {}),
      });
    }, T);
    afterAll(async () => {
      await b?.cleanup();
      rmSync(sessions, { recursive: true, force: true });
      if (callee) {
        await callee.agent.mock.close();
        rmSync(callee.root, { recursive: true, force: true, maxRetries: 5 });
      }
    }, T);

    /** Every task the bridge holds, newest first, as the activity view shows them (person only). */
    async function rows(): Promise<Row[]> {
      const snapshot = await b.rpc('activity/snapshot', {}, '/');
      return snapshot.rows as Row[];
    }

    /** The tasks `name` delegated since `before` was taken. */
    async function delegated(before: Set<string>, caller: string = name): Promise<Row[]> {
      return (await rows()).filter((r) => r.caller === caller && !before.has(r.taskId));
    }

    async function taskIds(): Promise<Set<string>> {
      return new Set((await rows()).map((r) => r.taskId));
    }

    /**
     * Follows the caller's task to its end. The person allows each permission the caller asks (an agent may
     * ask before it calls an MCP tool, as before any tool); `onChild` sees each delegated task while the
     * caller works, and may act on it (answer its question).
     */
    async function finish(
      taskId: string,
      before: Set<string>,
      onChild: (child: Row) => Promise<void> = async () => undefined,
    ): Promise<{ task: Wire; callerAsked: string[] }> {
      const callerAsked: string[] = [];
      const deadline = Date.now() + AGENT_WAIT_MS;
      for (;;) {
        const task = await b.get(taskId);
        const state = task.status.state as string;
        if (['completed', 'failed', 'canceled', 'rejected'].includes(state)) return { task, callerAsked };
        if (state === 'input-required') {
          callerAsked.push(String(task.metadata.pending?.toolCall?.title ?? JSON.stringify(task.metadata.pending)));
          await b.answer(taskId, 'yes');
        }
        for (const child of await delegated(before)) await onChild(child);
        if (Date.now() > deadline)
          throw new Error(
            `${name}: the delegating task never ended: ${explain(task)}\nbridge stderr: ${b.stderr().slice(-3000)}`,
          );
        // Paced, not a budget: a faster poll of tasks and the activity view runs into rate_limit_per_minute.
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    it(
      'finds contactor among its MCP servers with no setup, delegates with send_task, and the reply comes back',
      async () => {
        const before = await taskIds();
        const task = await b.send(`LANE: delegate echo hello through ${name}`);
        const { task: done } = await finish(task.id, before);
        // The agent told its model about contactor's tools, from the server the bridge offered.
        const offered = b.agent.mock.toolsSeen.flat();
        expect(
          offered.filter((t) => /send_task|get_task|list_agents/.test(t)),
          `tools the agent offered its model: ${[...new Set(offered)].join(', ')}`,
        ).toEqual(expect.arrayContaining([expect.stringContaining('send_task')]));
        expect(done.status.state, explain(done)).toBe('completed');
        expect(replyText(done), explain(done)).toContain(`echo: hello through ${name}`);
        const children = await delegated(before);
        expect(children, JSON.stringify(children)).toHaveLength(1);
        expect(children[0]).toMatchObject({ agent: 'echo', caller: name, state: 'completed' });
      },
      T,
    );

    it(
      'the delegated task shows in the activity view with the calling agent as its caller and in its chain',
      async () => {
        const before = await taskIds();
        const task = await b.send('LANE: delegate echo who sent this');
        const { task: done } = await finish(task.id, before);
        expect(done.status.state, explain(done)).toBe('completed');
        const [child] = await delegated(before);
        expect(child, JSON.stringify(await rows())).toMatchObject({
          agent: 'echo',
          caller: name,
          chain: [name, 'echo'],
        });
        const parentRow = (await rows()).find((r) => r.taskId === task.id);
        expect(parentRow).toMatchObject({ agent: name, caller: 'person' });
        const view = await b.rpc('activity/task', { taskId: task.id }, '/');
        expect(view.children.map((c: Row) => c.taskId)).toContain(child!.taskId);
      },
      T,
    );

    it(
      'a permission the delegated agent asks is answered by the person, and the work goes on',
      async () => {
        const before = await taskIds();
        const task = await b.send('LANE: delegate helper permission');
        const answered: string[] = [];
        const { task: done, callerAsked } = await finish(task.id, before, async (child) => {
          if (child.agent !== 'helper' || child.state !== 'input-required' || answered.includes(child.taskId)) return;
          const waiting = await b.get(child.taskId);
          expect(waiting.metadata.pending).toMatchObject({ kind: 'permission' });
          answered.push(child.taskId);
          await b.answer(child.taskId, 'yes');
        });
        const asked = JSON.stringify({ answered, callerAsked, caller: explain(done) });
        expect(done.status.state, asked).toBe('completed');
        expect(replyText(done), asked).toContain('outcome=allow');
        const children = (await delegated(before)).filter((r) => r.agent === 'helper');
        expect(children, asked).toHaveLength(1);
        const child = await b.get(children[0]!.taskId);
        expect(child.status.state, asked).toBe('completed');
        // Asked once, and the person answered: on the delegated task itself, or where the caller's MCP client
        // put the question to its user (elicitation, which the agent turns into a permission request of its
        // own task, answered in the bridge as the lane's other permissions are).
        const throughCaller = callerAsked.filter((title) => title.includes('helper') || title.includes(child.id));
        expect(answered.length + throughCaller.length, asked).toBe(1);
      },
      T,
    );

    it(
      'kill -9 of the bridge mid-delegation: after the restart the caller still gets its delegated task',
      async () => {
        const before = await taskIds();
        const task = await b.send('LANE: delegate helper permission');
        let parked: Row | undefined;
        const deadline = Date.now() + AGENT_WAIT_MS;
        while (!parked) {
          const caller = await b.get(task.id);
          if (caller.status.state === 'input-required') await b.answer(task.id, 'yes');
          if (['completed', 'failed', 'canceled'].includes(caller.status.state))
            throw new Error(`${name}: ended before the delegated task asked: ${explain(caller)}`);
          parked = (await delegated(before)).find((r) => r.agent === 'helper' && r.state === 'input-required');
          if (Date.now() > deadline) throw new Error(`${name}: the delegated task never asked: ${explain(caller)}`);
          if (!parked) await new Promise((r) => setTimeout(r, 250));
        }
        await b.kill9();
        await b.start();
        // The delegated task is still there, with its caller, still waiting for the person.
        const after = (await rows()).find((r) => r.taskId === parked.taskId);
        expect(after, JSON.stringify(await rows())).toMatchObject({ agent: 'helper', caller: name });
        // The caller asks for it by tool call (a new turn: its earlier turn died with the bridge).
        const asking = await b.send(`LANE: get ${parked.taskId}`);
        const { task: got } = await finish(asking.id, await taskIds());
        expect(got.status.state, explain(got)).toBe('completed');
        expect(replyText(got), explain(got)).toContain(parked.taskId);
        expect(replyText(got), explain(got)).toMatch(/input-required|working|completed/);
        // The person answers; the delegated work goes on and ends.
        await b.answer(parked.taskId, 'yes');
        const child = await b.waitFor(parked.taskId, ['completed', 'failed', 'canceled']);
        expect(child.status.state, explain(child)).toBe('completed');
      },
      T,
    );

    it.runIf(opts.realCallee !== undefined)(
      `delegates to a real agent of the bridge (${opts.realCallee}): its permission is answered by the person, its reply comes back`,
      async () => {
        const other = callee!.agent.name;
        const file = path.join(callee!.workspace, `made-for-${name}.txt`);
        const before = await taskIds();
        const task = await b.send(`LANE: delegate ${other} @run touch ${file}`);
        const answered: string[] = [];
        const { task: done } = await finish(task.id, before, async (child) => {
          if (child.agent !== other || child.state !== 'input-required' || answered.includes(child.taskId)) return;
          answered.push(child.taskId);
          await b.answer(child.taskId, 'yes');
        });
        expect(done.status.state, explain(done)).toBe('completed');
        expect(answered, explain(done)).toHaveLength(1);
        expect(existsSync(file), explain(done)).toBe(true);
        expect(replyText(done), explain(done)).toContain(`(${other}): completed`);
        const [child] = await delegated(before);
        expect(child).toMatchObject({ agent: other, caller: name, chain: [name, other], state: 'completed' });
      },
      T,
    );

    it.runIf(PLAIN_CLIS[name] !== undefined)(
      'as a plain CLI outside the bridge, with contactor mcp registered in its own config, it delegates the same way',
      async () => {
        const before = await taskIds();
        const run = await runPlainCli(
          name,
          b.root,
          b.workspace,
          b.configPath,
          `LANE: delegate echo hello from a plain ${name}`,
          AGENT_WAIT_MS,
        );
        try {
          const said = `exit ${run.code}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}`;
          expect(run.mock.toolsSeen.flat(), said).toEqual(
            expect.arrayContaining([expect.stringContaining('send_task')]),
          );
          expect(run.stdout, said).toContain(`echo: hello from a plain ${name}`);
          const children = await delegated(before, PLAIN_CALLER[name]!);
          expect(children, `${JSON.stringify(await rows())}\n${said}`).toHaveLength(1);
          expect(children[0]).toMatchObject({ agent: 'echo', state: 'completed' });
        } finally {
          await run.mock.close();
        }
      },
      T,
    );
  });
}

/**
 * Who an agent's plain CLI is to the bridge: an external agent named after the client's MCP clientInfo.name
 * (front-doors/mcp/mcp-identity.ts externalNameOf), as each agent names its MCP client; OpenCode's `opencode`
 * is the bridge's OpenCode agent, so it acts as `opencode-client`.
 */
const PLAIN_CALLER: Partial<Record<LaneAgentName, string>> = {
  gemini: 'gemini-cli-mcp-client',
  claude: 'claude-code',
  opencode: 'opencode-client',
};

/** What a failed expectation shows: the task's state, status text, reply and receipt. */
function explain(task: Wire): string {
  return JSON.stringify({
    status: task.status,
    reply: replyText(task),
    pending: task.metadata?.pending,
    receipt: task.metadata?.receipt,
  }).slice(0, 3000);
}
