/**
 * A failure reason built from an agent's stderr was served unredacted by tasks/get,
 * tasks/list and SSE while its audit copy was redacted. Now every text the bridge writes is redacted,
 * before any cut; replies stay as the agent wrote them, except the bridge's own tokens.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redact, SecretFilter } from '../../main/domain/redaction.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const LEAKS = [
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF',
  's3cr3t-Pa55',
  'topsecretvalue',
  'xoxb-123456789012-abcdefghijkl',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU',
  'QIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
];

describe('redact', () => {
  it('removes each credential kind and keeps the text around it', () => {
    const cases: [string, string][] = [
      ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY x', 'aws_secret_access_key = [REDACTED] x'],
      ['"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', '"AWS_SECRET_ACCESS_KEY": "[REDACTED]"'],
      ['t github_pat_11ABCDEFG0123456789_abcdefghij z', 't [REDACTED] z'],
      ['password=hunter22 next', 'password=[REDACTED] next'],
      ['secret: "abc123" ok', 'secret: "[REDACTED]" ok'],
      ['xoxb-123456789012-abcdefghijkl', '[REDACTED]'],
      ['xapp-1-A0123456789-abcdef', '[REDACTED]'],
      ['eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.', '[REDACTED]'],
      ['http://user:pa55w0rd@proxy.example:8080', 'http://user:[REDACTED]@proxy.example:8080'],
      ['-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- after', '[REDACTED] after'],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nabc (cut here', '[REDACTED]'],
    ];
    for (const [input, output] of cases) expect(redact(input), input).toBe(output);
    expect(redact('no secrets here: 40 chars wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')).toContain('wJalr');
  });

  it('filters a secret split across streamed pieces', () => {
    const filter = new SecretFilter(['SECRET-TOKEN-123']);
    const out = ['a SECRET-', 'TOKEN', '-123 b SECR', 'ET-TOKEN-1', '23', ' c SEC'].map((p) => filter.push(p));
    expect(out.join('') + filter.end()).toBe('a [REDACTED] b [REDACTED] c SEC');
  });

  it('filters every secret split at every boundary, holding back only what could still become one', () => {
    // Two secrets sharing a start, one repeating its own first characters (a held tail may restart inside it).
    const secrets = ['abab-abac-TOKEN', 'abab-xyz-OTHER'];
    const text = 'x ab abab-abac-TOKEN y abab-xyz-OTHER z abab-aba';
    // Where a secret (or the start of one, at the end) begins: a cut one to three characters into it
    // passes those characters on, the later cut of two.
    const runs = [5, 23, 40];
    for (let cut = 0; cut <= text.length; cut += 1) {
      for (let cut2 = cut; cut2 <= text.length; cut2 += 1) {
        const filter = new SecretFilter(secrets);
        const passed = [text.slice(0, cut), text.slice(cut, cut2), text.slice(cut2)].map((p) => filter.push(p));
        const [a, b, c] = runs.map((run) => {
          const into = [cut, cut2].filter((at) => at > run && at < run + 4);
          return text.slice(run, Math.max(run, ...into));
        });
        const expected = `x ab ${a}[REDACTED] y ${b}[REDACTED] z abab-aba`;
        // What is passed on is never a secret's start of four characters or more that the next piece could
        // still complete...
        const sofar = passed.join('');
        expect(sofar + filter.end(), `cuts at ${cut}, ${cut2}`).toBe(expected);
        // ...and nothing else is held back: the held tail is the longest proper prefix of a secret.
        expect(sofar, `cuts at ${cut}, ${cut2}`).toBe(`x ab ${a}[REDACTED] y ${b}[REDACTED] z ${c}`);
      }
    }
  });

  it("passes a piece ending in a secret's first characters on at once, and cuts the secret off where it goes on", () => {
    const filter = new SecretFilter(['yQ3vT9-bridge-token']);
    // A quiet agent after this piece: the person sees its last letter now, not when the agent speaks again.
    expect(filter.push('first words of the reply')).toBe('first words of the reply');
    expect(filter.push('Q3')).toBe('Q3');
    expect(filter.push('vT9-bridge-token, then')).toBe('[REDACTED], then');
    expect(filter.push(' yQ3v')).toBe(' ');
    expect(filter.push('T9-bridge-token.')).toBe('[REDACTED].');
    expect(filter.end()).toBe('');
  });
});

describe('on a real bridge', () => {
  let tb: TestBridge | undefined;
  afterEach(async () => {
    await tb?.cleanup();
    tb = undefined;
  });

  it('serves a failure reason without credentials through tasks/get, tasks/list and SSE', async () => {
    tb = await startTestBridge({
      agents: { leaky: nodeFixture('leak-secrets.mjs', { env: { FAIL: '1' } }) },
      isolatedEnv: true,
    });
    const agentToken = deriveAgentToken(tb.token, 'leaky');
    const res = await fetch(`${tb.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { agent: 'leaky', text: 'x' } }),
    });
    const sse = await res.text();
    const sent = JSON.parse(
      sse
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    const id = sent.result.id as string;
    const got = await tb.rpc('tasks/get', { id });
    expect(got.result.status.state).toBe('failed');
    const listed = await tb.rpc('tasks/list', { pageSize: 10, includeArtifacts: true });
    const audit = readFileSync(path.join(tb.dataDir, 'audit', 'audit.jsonl'), 'utf8');
    const served = { status: got.result.status, listed: listed.result.tasks[0].status, sse, audit };
    const text = JSON.stringify(served);
    for (const leak of [...LEAKS, agentToken, tb.token]) expect(text, leak).not.toContain(leak);
    expect(got.result.status.message.parts[0].text).toContain('[REDACTED]');
  });

  it("keeps the reply as the agent wrote it, except the bridge's own token", async () => {
    tb = await startTestBridge({ agents: { leaky: nodeFixture('leak-secrets.mjs') }, isolatedEnv: true });
    const res = await tb.rpc('message/send', { agent: 'leaky', text: 'x' });
    const reply = res.result.artifacts[0].parts[0].text as string;
    expect(reply).toBe('token [REDACTED] end; password=hunter2\n');
    expect(JSON.stringify(res.result)).not.toContain(deriveAgentToken(tb.token, 'leaky'));
  });

  it("removes the bridge's token from an agent's non-text parts too (text resource, data, link)", async () => {
    tb = await startTestBridge({ agents: { fake: fakeAcpAgent() }, isolatedEnv: true });
    const agentToken = deriveAgentToken(tb.token, 'fake');
    const res = await tb.rpc('message/send', { agent: 'fake', text: 'token-in-parts' });
    expect(res.result.status.state).toBe('completed');
    const parts = res.result.artifacts[0].parts;
    expect(parts).toEqual([
      { kind: 'text', text: 't=[REDACTED]' },
      { kind: 'data', data: { token: '[REDACTED]' } },
      {
        kind: 'file',
        file: { uri: 'https://example.com/x?token=[REDACTED]', name: '[REDACTED].txt' },
      },
    ]);
    const stored = await tb.rpc('tasks/get', { id: res.result.id });
    expect(JSON.stringify(stored.result)).not.toContain(agentToken);
  });

  it('redacts an undelivered reason built from an agent that died before its handshake', async () => {
    const dying = {
      kind: 'acp',
      command: [
        process.execPath,
        '-e',
        "process.stderr.write('login failed: password=hunter22 token ghp_abcdefghijklmnopqrstuvwx\\n'); process.exit(1)",
      ],
      timeout_s: TEST_TIMEOUT_MS / 1000,
    };
    tb = await startTestBridge({ agents: { dying }, isolatedEnv: true });
    const res = await tb.rpc('message/send', { agent: 'dying', text: 'x' });
    expect(res.result.status.state).toBe('failed');
    const served = JSON.stringify(res.result);
    expect(served).toContain('login failed');
    expect(served).not.toContain('hunter22');
    expect(served).not.toContain('ghp_abcdefghijklmnopqrstuvwx');
  });
});
