/**
 * Agents' replies are held to the depth requests are (domain/json-depth.ts): a JSON data part nested
 * 1,000 levels was stored and served, and one nested 20,000 levels vanished without a word (serializing
 * it overflowed the stack inside the turn). Now a data part nested past AGENT_VALUE_DEPTH becomes a note
 * saying so — the requester knows something is missing — and every other value an agent reports (a
 * progress note's data) is cut with a marker, at the one choke point (runtime/scrubber.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_VALUE_DEPTH, exceedsDepth, MAX_JSON_DEPTH, TOO_DEEP } from '../../main/domain/json-depth.js';
import { FakeBackend } from '../fixtures/fake-backends.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { Core } from '../runtime/core.js';
import { SECURITY_FIXTURES } from './attack-agents.js';
import path from 'node:path';

function nested(levels: number): Record<string, unknown> {
  let v: unknown = 1;
  for (let i = 0; i < levels; i += 1) v = { a: v };
  return v as Record<string, unknown>;
}

const NOTE = `[data not included: it nests deeper than ${AGENT_VALUE_DEPTH} levels; flatten it]`;

describe('nested data in replies', () => {
  it('keeps data within the depth, and replaces deeper data and progress values by a note or marker', async () => {
    const core = new Core();
    core.add(
      'deep',
      new FakeBackend(async (_turn, report) => {
        report.progress({ kind: 'tool_call', text: 'deep input', data: nested(1000) });
        report.content({ kind: 'data', data: nested(AGENT_VALUE_DEPTH) });
        report.content({ kind: 'data', data: nested(1000) });
        report.content({ kind: 'data', data: nested(100_000) });
        report.text('done');
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('deep', 'x', { blocking: true });
    expect(task.status.state).toBe('completed');
    const parts = task.artifacts[0]!.parts;
    expect(parts[0]).toEqual({ kind: 'data', data: nested(AGENT_VALUE_DEPTH) });
    expect(parts.slice(1, 3).map((p) => (p.kind === 'text' ? p.text.trim() : p))).toEqual([NOTE, NOTE]);
    const stored = core.store.get(task.id)!;
    const events = core.store.eventsAfter(task.id, 0);
    for (const value of [task, stored.task, ...events]) expect(exceedsDepth(value, MAX_JSON_DEPTH - 3)).toBe(false);
    expect(JSON.stringify(events)).toContain(TOO_DEEP);
    await core.close();
  });

  describe('from a real ACP agent', () => {
    let tb: TestBridge | undefined;
    afterEach(async () => {
      await tb?.cleanup();
      tb = undefined;
    });

    it('serves a note in place of a data part nested 1,000 or 20,000 levels', async () => {
      tb = await startTestBridge({
        agents: {
          deep: {
            kind: 'acp',
            command: [process.execPath, path.join(SECURITY_FIXTURES, 'leak-tokens-acp.mjs')],
            append_decision_contract: false,
            timeout_s: 60,
          },
        },
        isolatedEnv: true,
      });
      for (const levels of [1000, 20_000]) {
        const sent = await tb.rpc('message/send', { agent: 'deep', text: `deep ${levels}` });
        expect(sent.result.status.state).toBe('completed');
        const got = await tb.rpc('tasks/get', { id: sent.result.id });
        const texts = got.result.artifacts[0].parts.map((p: { text?: string }) => p.text?.trim());
        expect(texts).toEqual([NOTE, 'sent deep data']);
      }
    });
  });
});
