/**
 * An external agent's token (`contactor token --agent NAME`, `contactor mcp`) proves its name and nothing
 * more (SECURITY.md#the-token): attacks as an agent outside the bridge would try them, on the token check
 * alone, then over HTTP against a real bridge.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallerTokens, deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';

/** Pinned: HMAC-SHA256("install-secret", "contactor-external-agent:claude-code"), base64url. */
const CLAUDE_CODE = 'ext.claude-code.KS7A9lc7h6RyIXGxeZXA3FxiPlcfVpGaoHS0u4VMjQ0';

describe('external agent tokens (the token check)', () => {
  const tokens = new CallerTokens('install-secret', () => ['codex', 'gemini']);

  it('a token made from the install token proves its name', () => {
    expect(deriveExternalAgentToken('install-secret', 'claude-code')).toBe(CLAUDE_CODE);
    expect(tokens.identify(`Bearer ${CLAUDE_CODE}`)).toEqual({ kind: 'agent', agent: 'claude-code', external: true });
  });

  it('a forged MAC (made without the install token) proves nothing', () => {
    const forged = `ext.claude-code.${createHmac('sha256', 'a-guess').update('contactor-external-agent:claude-code').digest('base64url')}`;
    expect(tokens.identify(`Bearer ${forged}`)).toBeUndefined();
    expect(tokens.identify('Bearer ext.claude-code.')).toBeUndefined();
    expect(tokens.identify('Bearer ext.claude-code')).toBeUndefined();
  });

  it("another name on a valid token's MAC proves nothing", () => {
    const mac = CLAUDE_CODE.slice('ext.claude-code.'.length);
    expect(tokens.identify(`Bearer ext.claude-coder.${mac}`)).toBeUndefined();
    expect(tokens.identify(`Bearer ext.person.${mac}`)).toBeUndefined();
  });

  it('a valid external token never poses as an agent the bridge runs', () => {
    // Correctly made from the install token, for the name of a configured agent: still refused.
    const posing = 'ext.codex.ZjxrvfO2oP6FlqZjtH5vlkmfK93r38KUJZvq1xqGOs0';
    expect(deriveExternalAgentToken('install-secret', 'codex')).toBe(posing);
    expect(tokens.identify(`Bearer ${posing}`)).toBeUndefined();
  });

  it('a name outside the agent-name rule is refused, not cut to fit', () => {
    expect(() => deriveExternalAgentToken('install-secret', 'a b')).toThrow(/not an agent name/);
    const mac = createHmac('sha256', 'install-secret').update('contactor-external-agent:../x').digest('base64url');
    expect(tokens.identify(`Bearer ext.../x.${mac}`)).toBeUndefined();
  });
});

describe('external agent tokens (over HTTP)', () => {
  let bridge: TestBridge;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Body = { result?: any; error?: { code: number; message: string } };
  const post = async (token: string, method: string, params: unknown) => {
    const res = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return {
      status: res.status,
      body: (await res.json()) as Body,
    };
  };

  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(() => bridge?.cleanup());

  it("an external agent's token reads and sends, and its tasks name it as their creator", async () => {
    const token = deriveExternalAgentToken(bridge.token, 'claude-code');
    const sent = await post(token, 'message/send', { agent: 'echo', text: 'hi' });
    expect(sent.body.result.metadata.createdBy).toBe('agent:claude-code');
  });

  it('an external token may not use a person-only method', async () => {
    const token = deriveExternalAgentToken(bridge.token, 'claude-code');
    for (const method of ['config/status', 'config/reload', 'activity/snapshot']) {
      const refused = await post(token, method, {});
      expect(refused.body.error?.code).toBe(-32066);
      expect(refused.body.error?.message).toContain('agent claude-code may not');
    }
    const events = await fetch(`${bridge.url}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(events.status).toBe(403);
    await events.text();
  });

  it('an external token for the name of a configured agent is refused (401)', async () => {
    const posing = deriveExternalAgentToken(bridge.token, 'echo');
    const refused = await post(posing, 'agents/list', {});
    expect(refused.status).toBe(401);
  });

  it('an external agent answers and cancels only the tasks it created', async () => {
    const asked = await post(bridge.token, 'message/send', { agent: 'echo', text: 'decide: a|b' });
    const taskId = asked.body.result.id as string;
    expect(asked.body.result.status.state).toBe('input-required');
    const mallory = deriveExternalAgentToken(bridge.token, 'mallory');
    const answer = await post(mallory, 'tasks/answer', { taskId, answer: 'a' });
    expect(answer.body.error?.code).toBe(-32066);
    const cancel = await post(mallory, 'tasks/cancel', { id: taskId });
    expect(cancel.body.error?.code).toBe(-32066);
    const still = await post(bridge.token, 'tasks/get', { id: taskId });
    expect(still.body.result.status.state).toBe('input-required');
  });
});
