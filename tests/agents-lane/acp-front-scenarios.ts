/**
 * Each real agent of the lane reached through `contactor acp` (docs/contract.md#acp) instead of HTTP: an
 * editor (the SDK's client side, tests/front-doors/acp-editor.ts) runs the real command against the lane's
 * bridge, found from the bridge's config as an editor's settings name it, and talks to the agent over ACP.
 * A bridge of its own (a fresh agent process and mock), so these scenarios share nothing with the HTTP ones.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv } from '../cli/run-cli.js';
import { replyText, startEditor, type Editor } from '../front-doors/acp-editor.js';
import { eventually } from '../helpers/wait.js';
import { AGENT_WAIT_MS, LaneBridge, type Wire } from './lane-bridge.js';
import type { LaneAgentName } from './lane-agents.js';
import { openGate } from './mock-models.js';

const T = AGENT_WAIT_MS + 60_000;

/**
 * The options each pinned agent offers when it asks to run a command, as it sent them: the editor must see
 * these, not options contactor made up. A new pin of an agent that changes them changes this table.
 */
const COMMAND_PERMISSION_OPTIONS: Record<LaneAgentName, (command: string) => acp.PermissionOption[]> = {
  codex: (command) => [
    { optionId: 'approved', name: 'Yes, proceed', kind: 'allow_once' },
    {
      optionId: 'approved-execpolicy-amendment',
      name: `Yes, and don't ask again for commands that start with \`${command}\``,
      kind: 'allow_always',
    },
    { optionId: 'abort', name: 'No, and tell Codex what to do differently', kind: 'reject_once' },
  ],
  gemini: () => [
    { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
    { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
    { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
  ],
  opencode: () => [
    { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
  claude: () => [
    { optionId: 'allow-once', name: 'Yes', kind: 'allow_once' },
    { optionId: 'reject', name: 'No', kind: 'reject_once' },
  ],
  // Qwen Code offers to leave its auto mode when its safety classifier is unavailable (none in the lane).
  qwen: () => [
    { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
    {
      optionId: 'proceed_once_and_switch_to_default',
      name: 'Switch to Default Mode and allow once (recommended)',
      kind: 'allow_once',
    },
    { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
  ],
};

export function acpFrontScenarios(name: LaneAgentName): void {
  describe(`${name} through contactor acp`, () => {
    let b: LaneBridge;
    let editor: Editor;
    beforeAll(async () => {
      b = await LaneBridge.create(name);
      // `-c` the bridge's config, as an editor's settings would name it: the front door finds the running
      // bridge from there (its discovery file) with the person's install token.
      const home = mkdtempSync(path.join(b.root, 'editor-home-'));
      editor = startEditor(['--agent', name, '-c', b.configPath], cleanEnv(home));
      await editor.initialize();
    }, T);
    afterAll(async () => {
      await editor?.close();
      await b?.cleanup();
    }, T);

    const ws = (file: string): string => path.join(b.workspace, file);

    /** The session's tasks, oldest first, as the bridge stores them. */
    async function tasksOf(sessionId: string): Promise<Wire[]> {
      const page = await b.rpc('tasks/list', { contextId: sessionId }, '/');
      return [...page.tasks].sort((x: Wire, y: Wire) =>
        String(x.metadata.createdAt).localeCompare(String(y.metadata.createdAt)),
      );
    }

    it(
      'a prompt: the reply streams as agent_message_chunks, in order',
      async () => {
        const { sessionId } = await editor.newSession();
        // The mock holds the last piece until the editor has shown the others: they reached it while the
        // agent streamed, whatever the machine's load does to the pieces' timing.
        const release = `pieces-${sessionId}`;
        const replying = editor.prompt(sessionId, `LANE: pieces 6 until ${release}`);
        await eventually(() => replyText(editor.updatesOf(sessionId)).includes('part4'), 'the first pieces');
        openGate(release);
        const reply = await replying;
        expect(reply.stopReason, editor.stderr()).toBe('end_turn');
        const chunks = editor
          .updatesOf(sessionId)
          .filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text');
        expect(replyText(chunks)).toContain('part0 part1 part2 part3 part4 part5');
        expect(chunks.length).toBeGreaterThan(1);
      },
      T,
    );

    it(
      "a permission reaches the editor with the agent's own options; allowed, the command runs, answered by the person",
      async () => {
        const { sessionId } = await editor.newSession();
        const asked = editor.permissions.length;
        let existedWhenAsked: boolean | undefined;
        editor.onPermission = async (request) => {
          existedWhenAsked = existsSync(ws('acp-allowed.txt'));
          const allow = request.options.find((o) => o.kind === 'allow_once')!;
          return { outcome: { outcome: 'selected', optionId: allow.optionId } };
        };
        const command = `touch ${ws('acp-allowed.txt')}`;
        const reply = await editor.prompt(sessionId, `LANE: run ${command}`);
        const [task] = await tasksOf(sessionId);
        expect(reply.stopReason, explain(task)).toBe('end_turn');
        expect(editor.permissions.length - asked).toBe(1);
        const request = editor.permissions[asked]!;
        expect(request.sessionId).toBe(sessionId);
        expect(request.options).toEqual(COMMAND_PERMISSION_OPTIONS[name](command));
        expect(existedWhenAsked).toBe(false);
        expect(existsSync(ws('acp-allowed.txt')), explain(task)).toBe(true);
        expect(task.status.state).toBe('completed');
        expect(task.metadata.answeredBy).toBe('person (token: ACP client Zed)');
      },
      T,
    );

    it(
      'a second prompt in the session reaches the same agent session',
      async () => {
        const { sessionId } = await editor.newSession();
        expect((await editor.prompt(sessionId, 'LANE: remember kiwi')).stopReason).toBe('end_turn');
        const before = editor.updates.length;
        expect((await editor.prompt(sessionId, 'LANE: recall')).stopReason).toBe('end_turn');
        expect(replyText(editor.updatesOf(sessionId, before))).toContain('you said kiwi');
        const [one, two] = await tasksOf(sessionId);
        expect(two.metadata.receipt).toMatchObject({ sessionId: one.metadata.receipt.sessionId, sessionReused: true });
      },
      T,
    );

    it(
      'session/cancel mid-turn: the prompt ends "cancelled", the agent stops its turn, the session goes on',
      async () => {
        const { sessionId } = await editor.newSession();
        const prompt = editor.prompt(sessionId, 'LANE: slow');
        await eventually(() => replyText(editor.updatesOf(sessionId)).includes('piece 2'), 'streamed output');
        await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
        expect((await prompt).stopReason).toBe('cancelled');
        expect((await tasksOf(sessionId))[0].status.state).toBe('canceled');
        // The bridge reports the task canceled at once (docs/contract.md#acp); the agent's own stop follows.
        let task: Wire;
        await eventually(async () => {
          [task] = await tasksOf(sessionId);
          return task.metadata.receipt?.cancel !== undefined;
        }, 'receipt.cancel');
        expect(task.metadata.receipt.cancel).toBe('agent stopped the turn');
        const before = editor.updates.length;
        expect((await editor.prompt(sessionId, 'LANE: say still here')).stopReason).toBe('end_turn');
        expect(replyText(editor.updatesOf(sessionId, before))).toContain('still here');
      },
      T,
    );
  });
}

/** What a failed expectation shows: the task's state, status text and receipt. */
function explain(task: Wire): string {
  return JSON.stringify({ status: task?.status, receipt: task?.metadata?.receipt }).slice(0, 3000);
}
