/**
 * `contactor acp` as an editor reaches it: the real command (a child process) driven by the SDK's client side,
 * against a real test bridge whose agents are the fake ACP agent (tests/fixtures/acp) and the echo demo agent.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as acp from '@agentclientprotocol/sdk';
import { echoAgent, fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv } from '../cli/run-cli.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { eventually } from '../helpers/wait.js';
import { replyText, startEditor, type Editor } from './acp-editor.js';

let bridge: TestBridge;
let editor: Editor;

beforeAll(async () => {
  bridge = await startTestBridge({
    agents: {
      // A grace long enough that an agent slow to stop (`stop-when`) stops by itself, never killed.
      fake: fakeAcpAgent([], { cancel_grace_s: 120 }),
      echo: echoAgent({ description: 'the demo agent' }),
      broken: { kind: 'acp', command: ['/nonexistent/agent-program'], append_decision_contract: false },
    },
  });
  editor = startEditor(['--agent', 'fake'], bridgeEnv(bridge));
  await editor.initialize();
});
afterAll(async () => {
  await editor?.close();
  await bridge?.cleanup();
});

async function taskOf(
  sessionId: string,
): Promise<{ id: string; status: { state: string }; metadata: Record<string, unknown> }> {
  const page = await bridge.rpc('tasks/list', { contextId: sessionId });
  return page.result.tasks[0];
}

describe('contactor acp: sessions and turns', () => {
  it('advertises what it implements and offers the bridge agents as the session option, --agent first', async () => {
    const init = await editor.initialize();
    expect(init.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, audio: true, embeddedContext: true },
    });
    const session = await editor.newSession();
    expect(session.configOptions).toEqual([
      {
        id: 'agent',
        name: 'Agent',
        description: 'the contactor agent this session talks to',
        type: 'select',
        currentValue: 'fake',
        options: [
          { value: 'fake', name: 'fake' },
          { value: 'echo', name: 'echo', description: 'the demo agent' },
          { value: 'broken', name: 'broken' },
        ],
      },
    ]);
  });

  it('streams thoughts, a plan, tool calls and text in the order the agent sent them', async () => {
    const { sessionId } = await editor.newSession();
    const reply = await editor.prompt(sessionId, 'progress');
    expect(reply.stopReason).toBe('end_turn');
    expect(editor.updatesOf(sessionId)).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thinking hard' } },
      { sessionUpdate: 'plan', entries: [{ content: 'step one', priority: 'high', status: 'in_progress' }] },
      { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'read a.txt', kind: 'read', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'read a.txt', kind: 'read', status: 'completed' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } },
    ]);
  });

  it('keeps follow-ups in the same context: the agent sees one conversation', async () => {
    const { sessionId } = await editor.newSession();
    await editor.prompt(sessionId, 'echo first');
    const before = editor.updates.length;
    await editor.prompt(sessionId, 'count');
    expect(replyText(editor.updatesOf(sessionId, before))).toMatch(/ turn=2$/);
    const page = await bridge.rpc('tasks/list', { contextId: sessionId });
    expect(page.result.tasks).toHaveLength(2);
  });

  it('the session option switches the agent', async () => {
    const { sessionId } = await editor.newSession();
    const set = await editor.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'agent',
      value: 'echo',
    });
    expect((set.configOptions[0] as { currentValue: string }).currentValue).toBe('echo');
    await editor.prompt(sessionId, 'hello there');
    expect((await taskOf(sessionId)).metadata.agent).toBe('echo');
  });
});

describe('contactor acp: questions go to the editor, its answers are the person', () => {
  it('a permission is asked with the agent own options; allowed, the agent goes on', async () => {
    const { sessionId } = await editor.newSession();
    const asked = editor.permissions.length;
    editor.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    const reply = await editor.prompt(sessionId, 'permission');
    expect(reply.stopReason).toBe('end_turn');
    const request = editor.permissions[asked]!;
    expect(request.sessionId).toBe(sessionId);
    expect(request.toolCall).toMatchObject({ title: 'write', kind: 'edit', rawInput: { file: 'write.txt' } });
    expect(request.options).toEqual([
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ]);
    expect(replyText(editor.updatesOf(sessionId))).toBe('outcome=allow');
    expect((await taskOf(sessionId)).metadata.answeredBy).toBe('person (token: ACP client Zed)');
  });

  it('an editor with a very long name is named by its first 80 characters', async () => {
    const long = startEditor(['--agent', 'fake'], bridgeEnv(bridge), `${'n'.repeat(80)}TOO LONG`);
    try {
      await long.initialize();
      const { sessionId } = await long.newSession();
      await long.prompt(sessionId, 'permission');
      expect((await taskOf(sessionId)).metadata.answeredBy).toBe(`person (token: ACP client ${'n'.repeat(80)})`);
    } finally {
      await long.close();
    }
  });

  it('rejected, the agent hears the rejection', async () => {
    const { sessionId } = await editor.newSession();
    editor.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    await editor.prompt(sessionId, 'permission');
    expect(replyText(editor.updatesOf(sessionId))).toBe('outcome=reject');
  });

  it('a decision is a permission request with the decision options; the choice starts the next turn', async () => {
    const { sessionId } = await editor.newSession();
    await editor.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'agent',
      value: 'echo',
    });
    const asked = editor.permissions.length;
    editor.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'TOML' } });
    const reply = await editor.prompt(sessionId, 'pick one. decide: YAML|TOML');
    expect(reply.stopReason).toBe('end_turn');
    expect(editor.permissions[asked]!.options).toEqual([
      { optionId: 'YAML', name: 'YAML (recommended)', kind: 'allow_once' },
      { optionId: 'TOML', name: 'TOML', kind: 'allow_once' },
    ]);
    expect(replyText(editor.updatesOf(sessionId))).toContain('Going with TOML. Done.');
    const task = await taskOf(sessionId);
    expect(task.status.state).toBe('completed');
    expect(task.metadata.answeredBy).toBe('person (token: ACP client Zed)');
  });
});

describe('contactor acp: the bridge decides who is calling', () => {
  it("run with an agent's token, the front door answers as that agent, never as the person", async () => {
    // The attack: an agent starts the front door with its own token and answers as if it were the editor.
    const own = startEditor(
      ['--agent', 'fake'],
      bridgeEnv(bridge, { CONTACTOR_TOKEN: deriveAgentToken(bridge.token, 'echo') }),
    );
    try {
      await own.initialize();
      const { sessionId } = await own.newSession();
      own.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
      expect((await own.prompt(sessionId, 'permission')).stopReason).toBe('end_turn');
      const task = await taskOf(sessionId);
      expect(task.metadata.createdBy).toBe('agent:echo');
      expect(task.metadata.answeredBy).toBe('agent echo');
    } finally {
      await own.close();
    }
  });

  it('the agent doing the work cannot send to itself through it: the loop guard refuses', async () => {
    const own = startEditor(
      ['--agent', 'fake'],
      bridgeEnv(bridge, { CONTACTOR_TOKEN: deriveAgentToken(bridge.token, 'fake') }),
    );
    try {
      await own.initialize();
      const { sessionId } = await own.newSession();
      expect((await own.prompt(sessionId, 'permission')).stopReason).toBe('refusal');
      expect(replyText(own.updatesOf(sessionId))).toMatch(
        /^task \S+ was rejected: delegation loop: "fake" is already in this chain/,
      );
    } finally {
      await own.close();
    }
  });
});

describe('contactor acp: cancel', () => {
  it('mid-turn: the prompt ends "cancelled" once the agent stopped, and the task is canceled', async () => {
    const { sessionId } = await editor.newSession();
    const prompt = editor.prompt(sessionId, 'stream');
    await eventually(() => replyText(editor.updatesOf(sessionId)).includes('tick 1'), 'ticks');
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect((await taskOf(sessionId)).status.state).toBe('canceled');
  });

  it('an agent slow to stop: the prompt ends "cancelled" only after the bridge recorded its turn ended', async () => {
    const goFile = path.join(tempDir(), 'stop-now');
    const { sessionId } = await editor.newSession();
    let resolvedAt: number | undefined;
    const prompt = editor.prompt(sessionId, `stop-when ${goFile}`).then((reply) => {
      resolvedAt = Date.now();
      return reply;
    });
    await eventually(() => replyText(editor.updatesOf(sessionId)).includes('tick 1'), 'ticks');
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    await eventually(async () => (await taskOf(sessionId)).status.state === 'canceled', 'the task canceled');
    // The agent still works on its turn: nothing may end the prompt yet. A front door that ends it on the
    // canceled state alone does so within a few bridge calls; a second gives it the chance to show it.
    await Promise.race([prompt, delay(1000)]);
    expect(resolvedAt).toBeUndefined();
    const receipt = (await taskOf(sessionId)).metadata.receipt as Record<string, unknown>;
    expect(receipt.turnStartedAt).toEqual(expect.any(String));
    expect(receipt.turnEndedAt).toBeUndefined();
    expect(existsSync(goFile)).toBe(false);

    writeFileSync(goFile, '');
    expect((await prompt).stopReason).toBe('cancelled');
    const ended = (await taskOf(sessionId)).metadata.receipt as Record<string, unknown>;
    expect(ended.cancel).toBe('agent stopped the turn');
    expect(Date.parse(ended.turnEndedAt as string)).toBeLessThanOrEqual(resolvedAt!);
  });

  it('while a question waits: the editor answers "cancelled" as ACP asks, the task is canceled', async () => {
    const { sessionId } = await editor.newSession();
    editor.onPermission = async () => {
      await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      return { outcome: { outcome: 'cancelled' } };
    };
    expect((await editor.prompt(sessionId, 'permission')).stopReason).toBe('cancelled');
    expect((await taskOf(sessionId)).status.state).toBe('canceled');
  });
});

describe('contactor acp: file parts both ways', () => {
  it("the agent's image, link and embedded resource reach the editor as ACP content", async () => {
    const { sessionId } = await editor.newSession();
    await editor.prompt(sessionId, 'rich');
    const content = editor
      .updatesOf(sessionId)
      .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type !== 'text' ? [u.content] : []));
    expect(content).toEqual([
      {
        type: 'image',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
        mimeType: 'image/png',
      },
      { type: 'resource_link', uri: 'https://example.com/report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
      {
        type: 'resource',
        resource: { uri: 'contactor:data', mimeType: 'application/json', text: '{"passed":12,"failed":0}' },
      },
    ]);
  });

  it('a prompt of files alone is sent, its text naming them', async () => {
    const { sessionId } = await editor.newSession();
    await editor.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'agent',
      value: 'echo',
    });
    const reply = await editor.prompt(sessionId, [
      {
        type: 'resource',
        resource: { uri: 'file:///project/notes.txt', mimeType: 'text/plain', text: 'twelve bytes' },
      },
    ]);
    expect(reply.stopReason).toBe('end_turn');
    const task = (await bridge.rpc('tasks/list', { contextId: sessionId, historyLength: 1 })).result.tasks[0];
    expect(task.history[0].parts[0]).toEqual({ kind: 'text', text: 'attached: notes.txt' });
  });

  it("the editor's embedded resource reaches the agent as an attached file", async () => {
    const { sessionId } = await editor.newSession();
    await editor.prompt(sessionId, [
      { type: 'text', text: 'saved-files' },
      {
        type: 'resource',
        resource: { uri: 'file:///project/notes.txt', mimeType: 'text/plain', text: 'twelve bytes' },
      },
    ]);
    expect(replyText(editor.updatesOf(sessionId))).toMatch(/notes\.txt 12 bytes$/);
  });
});

describe('contactor acp: errors in the words the CLI uses', () => {
  it('an unknown --agent', async () => {
    const other = startEditor(['--agent', 'ghost'], bridgeEnv(bridge));
    try {
      await other.initialize();
      const err = await other.newSession().catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: -32060,
        message:
          'agents/card failed: no agent named "ghost"; configured agents: fake, echo, broken; see `contactor agents` [-32060]',
      });
    } finally {
      await other.close();
    }
  });

  it('no bridge at CONTACTOR_URL', async () => {
    const down = 'http://127.0.0.1:9';
    const other = startEditor([], bridgeEnv(bridge, { CONTACTOR_URL: down }));
    try {
      await other.initialize();
      const err = await other.newSession().catch((e: unknown) => e);
      expect(err).toMatchObject({
        message: `no bridge answers at CONTACTOR_URL=${down}; unset it to start a local bridge, or start the one it names`,
      });
    } finally {
      await other.close();
    }
  });

  it('an agent that fails to start', async () => {
    const { sessionId } = await editor.newSession();
    await editor.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'agent',
      value: 'broken',
    });
    const err = await editor.prompt(sessionId, 'hello').catch((e: unknown) => e);
    const task = await taskOf(sessionId);
    expect(err).toMatchObject({ code: -32603 });
    expect((err as Error).message).toMatch(new RegExp(`^task ${task.id} failed: .*agent-program`));
  });
});
