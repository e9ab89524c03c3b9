/**
 * docs/examples/acp-agent.mjs, the example in docs/writing-agents.md, run through a real bridge as its config
 * snippet says (decision contract on, as for every ACP agent): a permission request answered, a decision block
 * answered by number, a plain turn. And the page quotes the decision contract the bridge really sends.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECISION_CONTRACT } from '../../main/domain/decision-contract.js';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { waitForState } from '../helpers/wait.js';

const EXAMPLE = path.join(REPO_ROOT, 'docs', 'examples', 'acp-agent.mjs');
let b: TestBridge;

beforeAll(async () => {
  b = await startTestBridge({
    agents: { example: { kind: 'acp', command: [process.execPath, EXAMPLE], timeout_s: TEST_TIMEOUT_MS / 1000 } },
  });
});
afterAll(() => b?.cleanup());

describe('the example ACP agent', () => {
  it('asks permission; "yes" lets it go on', async () => {
    const sent = await b.rpc('message/send', { agent: 'example', text: 'write the notes' });
    expect(sent.result.status.state).toBe('input-required');
    expect(sent.result.metadata.pending).toMatchObject({ kind: 'permission' });
    expect(sent.result.metadata.pending.toolCall.title).toBe('Write notes.md');
    await b.rpc('tasks/answer', { taskId: sent.result.id, answer: 'yes' });
    const done = await waitForState(b, sent.result.id, 'completed');
    expect(done.artifacts.flatMap((a: { parts: { text: string }[] }) => a.parts.map((p) => p.text)).join('')).toBe(
      'Allowed: I would write notes.md now.',
    );
  });

  it('ends its reply with a decision block; the choice comes back as the next turn', async () => {
    const sent = await b.rpc('message/send', { agent: 'example', text: 'choose a config format' });
    expect(sent.result.status.state).toBe('input-required');
    expect(sent.result.metadata.pending).toMatchObject({
      kind: 'decision',
      question: 'Which config format should I use?',
      options: ['YAML', 'TOML'],
      recommend: 'YAML',
      reason: 'the rest of the project uses YAML',
    });
    await b.rpc('tasks/answer', { taskId: sent.result.id, answer: '2' });
    const done = await waitForState(b, sent.result.id, 'completed');
    expect(JSON.stringify(done.artifacts)).toContain('Going with TOML. Done.');
  });

  it('a plain turn is echoed without the contract the bridge appended', async () => {
    const sent = await b.rpc('message/send', { agent: 'example', text: 'hello' });
    expect(sent.result.status.state).toBe('completed');
    expect(sent.result.artifacts[0].parts.map((p: { text: string }) => p.text).join('')).toBe('You said: hello');
  });
});

describe('docs/writing-agents.md', () => {
  it('quotes the decision contract exactly as the bridge appends it', () => {
    const page = readFileSync(path.join(REPO_ROOT, 'docs', 'writing-agents.md'), 'utf8');
    const quoted = /```text\n([\s\S]*?)\n```/.exec(page)?.[1];
    expect(`\n\n${quoted}`).toBe(DECISION_CONTRACT);
  });
});
