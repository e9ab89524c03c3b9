/**
 * The default agent (docs/contract.md#the-default-agent): a client that knows only the bridge's address
 * sends to `/` and reaches `default_agent`, or the only agent; the root card names it; a reload changes it;
 * a bad name is a config error naming the agents; without one, several agents get the refusal that says
 * what to do. Real bridge, real HTTP, the demo echo agent under two names.
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText, ConfigError } from '../../main/config/config.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { openStream, readUntil, userMessage, type Wire } from '../a2a/wire.js';

function artifactText(task: Wire): string {
  return (task.artifacts as { parts: { kind?: string; text?: string }[] }[])
    .flatMap((a) => a.parts.map((p) => p.text ?? ''))
    .join('');
}

/** config.yaml of the bridge under test, rewritten in place (the reload reads it). */
function rewriteConfig(tb: TestBridge, extra: Record<string, unknown>): void {
  writeFileSync(
    tb.configPath,
    stringify({
      port: 0,
      data_dir: tb.dataDir,
      require_token: true,
      ...extra,
      agents: { alpha: echoAgent(), beta: echoAgent() },
    }),
  );
}

async function rootCard(tb: TestBridge, headers: Record<string, string> = {}): Promise<Wire> {
  const res = await fetch(`${tb.url}/.well-known/agent-card.json`, { headers });
  expect(res.status).toBe(200);
  return res.json();
}

const SEND = (text: string) => ({ message: userMessage('0.3', text) });

describe('default_agent in config.yaml', () => {
  it('must name a configured agent: the error says which name and lists the agents', () => {
    const text = 'agents:\n  alpha:\n    kind: subprocess_cli\n    command: [x]\ndefault_agent: gamma\n';
    expect(() => parseConfigText(text, '/tmp/c.yaml', {})).toThrow(ConfigError);
    expect(() => parseConfigText(text, '/tmp/c.yaml', {})).toThrow(
      '/tmp/c.yaml:5: default_agent: "gamma" is not a configured agent; name one of: alpha',
    );
  });

  it('is accepted when it names one', () => {
    const text = 'agents:\n  alpha:\n    kind: subprocess_cli\n    command: [x]\ndefault_agent: alpha\n';
    expect(parseConfigText(text, '/tmp/c.yaml', {}).default_agent).toBe('alpha');
  });
});

describe('two agents, default_agent: beta', () => {
  let tb: TestBridge;
  beforeAll(async () => {
    tb = await startTestBridge({
      agents: { alpha: echoAgent(), beta: echoAgent() },
      config: { default_agent: 'beta' },
    });
  });
  afterAll(async () => {
    await tb.cleanup();
  });

  it('message/send at the root reaches beta; tasks/get at the root reads the task', async () => {
    const sent = await tb.rpc('message/send', SEND('root hello'));
    expect(sent.error).toBeUndefined();
    expect(sent.result.metadata.agent).toBe('beta');
    expect(artifactText(sent.result)).toContain('echo: root hello');
    const got = await tb.rpc('tasks/get', { id: sent.result.id });
    expect(got.result).toMatchObject({
      id: sent.result.id,
      status: { state: 'completed' },
      metadata: { agent: 'beta' },
    });
  });

  it('the v1 SendMessage and GetTask at the root reach beta too', async () => {
    const headers = { 'A2A-Version': '1.0' };
    const sent = await tb.rpc('SendMessage', { message: userMessage('1.0', 'v1 root') }, { headers });
    expect(sent.error).toBeUndefined();
    const task = sent.result.task;
    expect(task.metadata.agent).toBe('beta');
    const got = await tb.rpc('GetTask', { id: task.id }, { headers });
    expect(got.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("message/stream at the root streams beta's task to its end", async () => {
    const stream = await openStream(tb, { version: '0.3', method: 'message/stream', params: SEND('root stream') });
    expect(stream.error).toBeUndefined();
    const events = await readUntil(stream, (e) => e.data.result?.final === true);
    const first = events[0]!.data.result;
    expect(first.metadata.agent).toBe('beta');
    expect(events.at(-1)!.data.result.status.state).toBe('completed');
    const got = await tb.rpc('tasks/get', { id: first.id });
    expect(artifactText(got.result)).toContain('echo: root stream');
  });

  it('the shorthand at the root may leave the agent out', async () => {
    const sent = await tb.rpc('message/send', { text: 'shorthand root' });
    expect(sent.result.metadata.agent).toBe('beta');
  });

  it('metadata.agent at the root still picks another agent', async () => {
    const sent = await tb.rpc('message/send', { ...SEND('to alpha'), metadata: { agent: 'alpha' } });
    expect(sent.result.metadata.agent).toBe('alpha');
  });

  it('the root card names beta, in both renderings, and keeps the root url', async () => {
    for (const headers of [{}, { 'A2A-Version': '1.0' }] as Record<string, string>[]) {
      const card = await rootCard(tb, headers);
      expect(card.name).toBe('contactor');
      expect(card.description).toContain(
        'A message sent here goes to the agent "beta" (default_agent in config.yaml) unless metadata.agent names another;',
      );
      expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['beta', 'alpha']);
      expect(card.skills[0].tags).toContain('default');
      expect(card.supportedInterfaces[0].url).toBe(`${tb.url}/`);
    }
    const dual = await rootCard(tb);
    expect(dual.url).toBe(`${tb.url}/`);
    expect(dual.preferredTransport).toBe('JSONRPC');
  });

  it('the loop guard holds at the root exactly as at /agents/beta: a chain that visited beta comes back', async () => {
    // A contactor peer names the agents a chain visited (metadata.visitedAgents); the root's default is
    // beta, so this send would close a loop, which the dispatcher refuses whichever endpoint carries it.
    const looping = { ...SEND('loop'), metadata: { visitedAgents: ['beta'], delegationDepth: 1 } };
    const atRoot = await tb.rpc('message/send', looping);
    const atPath = await tb.rpc('message/send', looping, { path: '/agents/beta' });
    const said = (task: Wire): unknown => [task.metadata.agent, task.status.state, task.status.message?.parts];
    expect(said(atRoot.result)).toEqual(said(atPath.result));
    expect(atRoot.result.metadata.agent).toBe('beta');
    expect(atRoot.result.status.state).not.toBe('completed');
    expect(JSON.stringify(atRoot.result.status.message)).toContain(
      'delegation loop: \\"beta\\" is already in this chain',
    );
  });

  it("an agent's token at the root is that agent, as at /agents/beta: the task records who created it", async () => {
    const headers = { authorization: `Bearer ${deriveAgentToken(tb.token, 'alpha')}` };
    const atRoot = await tb.rpc('message/send', SEND('from alpha'), { headers });
    const atPath = await tb.rpc('message/send', SEND('from alpha'), { headers, path: '/agents/beta' });
    expect(atRoot.result.metadata.agent).toBe('beta');
    expect(atRoot.result.metadata.createdBy).toEqual(atPath.result.metadata.createdBy);
    expect(atRoot.result.metadata.createdBy).toBe('agent:alpha');
  });
});

describe('several agents and no default', () => {
  let tb: TestBridge;
  beforeAll(async () => {
    tb = await startTestBridge({ agents: { alpha: echoAgent(), beta: echoAgent() } });
  });
  afterAll(async () => {
    await tb.cleanup();
  });

  it('a send at the root without an agent is refused, saying the three ways out and the agents', async () => {
    const res = await tb.rpc('message/send', SEND('to whom?'));
    expect(res.error).toEqual({
      code: -32602,
      message:
        'no agent chosen: post to /agents/<name>, set params.metadata.agent, or set default_agent in config.yaml; agents: alpha, beta',
      data: { agents: ['alpha', 'beta'] },
    });
  });

  it('the root card says to address an agent', async () => {
    const card = await rootCard(tb);
    expect(card.description).toContain('Address one agent at its own endpoint, /agents/<name>');
    expect(card.description).not.toContain('goes to the agent');
  });

  it('a reload that sets default_agent routes the root to it; one that names no agent changes nothing', async () => {
    rewriteConfig(tb, { default_agent: 'alpha' });
    const applied = await tb.rpc('config/reload');
    expect(applied.result.error).toBeUndefined();
    expect((await tb.rpc('message/send', SEND('after reload'))).result.metadata.agent).toBe('alpha');
    expect((await rootCard(tb)).skills[0].id).toBe('alpha');

    rewriteConfig(tb, { default_agent: 'gamma' });
    const refused = await tb.rpc('config/reload');
    expect(refused.result.error).toBe(
      `${tb.configPath}:4: default_agent: "gamma" is not a configured agent; name one of: alpha, beta`,
    );
    expect((await tb.rpc('message/send', SEND('still alpha'))).result.metadata.agent).toBe('alpha');

    rewriteConfig(tb, {});
    expect((await tb.rpc('config/reload')).result.error).toBeUndefined();
    expect((await tb.rpc('message/send', SEND('nobody'))).error?.message).toMatch(/^no agent chosen: /);
  });
});

describe('one agent, no default_agent', () => {
  let tb: TestBridge;
  beforeAll(async () => {
    tb = await startTestBridge({ agents: { solo: echoAgent() } });
  });
  afterAll(async () => {
    await tb.cleanup();
  });

  it('a send at the root goes to the only agent, and the card says why', async () => {
    const sent = await tb.rpc('message/send', SEND('just you'));
    expect(sent.result.metadata.agent).toBe('solo');
    const card = await rootCard(tb);
    expect(card.description).toContain('goes to the agent "solo" (the only agent configured)');
  });
});
