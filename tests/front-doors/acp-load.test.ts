/**
 * `session/load` carries a conversation over a bridge killed with kill -9: the same `contactor acp` starts a
 * bridge again (none runs), replays the context's history from the store, and the next prompt continues the
 * context; an editor that restarted loads it the same way.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as acp from '@agentclientprotocol/sdk';
import { fakeAcpAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { eventually } from '../helpers/wait.js';
import { cleanEnv } from '../cli/run-cli.js';
import { rpc, startBridgeProcess, type BridgeProcess } from '../security/kill-harness.js';
import { replyText, startEditor, type Editor } from './acp-editor.js';

const dir = tempDir();
const { configPath, dataDir } = writeTestConfig(dir, { agents: { fake: fakeAcpAgent() } });
const env = cleanEnv(dir, { CONTACTOR_CONFIG: configPath });
const editors: Editor[] = [];

function discoveredPid(): number | undefined {
  const file = path.join(dataDir, 'bridge.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid : undefined;
}

afterAll(async () => {
  for (const e of editors) await e.close();
  // The bridge `contactor acp` started, by the pid it published.
  const pid = discoveredPid();
  if (pid !== undefined) {
    try {
      process.kill(pid, 'SIGTERM');
      await eventually(() => !isAlive(pid), 'the started bridge to stop');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(process.platform === 'win32')('contactor acp: session/load after kill -9', () => {
  it('replays the history from the store and continues the same context, in the same and in a new editor', async () => {
    const first: BridgeProcess = await startBridgeProcess(configPath, dataDir, dir);
    const editor = startEditor([], env);
    editors.push(editor);
    await editor.initialize();
    const { sessionId } = await editor.newSession();
    expect(
      replyText(await editor.prompt(sessionId, 'echo kept in the store').then(() => editor.updatesOf(sessionId))),
    ).toBe('echo: kept in the store');

    first.child.kill('SIGKILL');
    await first.exited;

    const mark = editor.updates.length;
    const loaded = await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] });
    expect(editor.updatesOf(sessionId, mark)).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'echo kept in the store' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'echo: kept in the store' } },
    ]);
    expect((loaded.configOptions?.[0] as { currentValue: string }).currentValue).toBe('fake');
    const restarted = discoveredPid();
    expect(restarted).not.toBe(first.child.pid);

    const next = editor.updates.length;
    expect((await editor.prompt(sessionId, 'echo after the restart')).stopReason).toBe('end_turn');
    expect(replyText(editor.updatesOf(sessionId, next))).toBe('echo: after the restart');

    // An editor that restarted too.
    const again = startEditor([], env, 'JetBrains');
    editors.push(again);
    await again.initialize();
    await again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] });
    expect(again.updatesOf(sessionId).map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
      'user_message_chunk',
      'agent_message_chunk',
    ]);
    const discovery = JSON.parse(readFileSync(path.join(dataDir, 'bridge.json'), 'utf8')) as BridgeProcess;
    const page = await rpc(discovery, 'tasks/list', { contextId: sessionId });
    expect(page.result.tasks).toHaveLength(2);
  });

  it('a prompt under way when the bridge is killed follows its task on the restarted bridge to its true end', async () => {
    const editor = startEditor([], env);
    editors.push(editor);
    await editor.initialize();
    const { sessionId } = await editor.newSession();
    const prompt = editor.prompt(sessionId, 'stream').catch((e: unknown) => e);
    await eventually(() => replyText(editor.updatesOf(sessionId)).includes('tick 1'), 'ticks');
    const killed = discoveredPid()!;
    process.kill(killed, 'SIGKILL');
    // The restart decides: a turn cut off by a kill is failed and may be sent again (docs/contract.md#acp).
    const err = (await prompt) as acp.RequestError;
    expect(err).toMatchObject({ code: -32603, data: { retryable: true } });
    expect(err.message).toMatch(/^task \S+ failed: /);
    expect(discoveredPid()).not.toBe(killed);
  });

  it('an unknown session is ACP "resource not found"', async () => {
    const editor = startEditor([], env);
    editors.push(editor);
    await editor.initialize();
    const err = await editor.agent
      .request(acp.methods.agent.session.load, { sessionId: 'no-such-context', cwd: dir, mcpServers: [] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32002, data: { sessionId: 'no-such-context' } });
  });
});
