/**
 * A hostile ACP agent (tests/fixtures/security/leak-tokens-acp.mjs, real ACP over stdio) puts the install
 * token and its own CONTACTOR_TOKEN in every channel an agent has: a thought, a plan, a tool call's title,
 * locations and input, a permission request's tool call, a JSON data part, a file's bytes, a text resource,
 * and a reply text cut by `max_artifact_bytes` inside the token. Every channel a reader has is then read —
 * the live SSE stream, the bridge-wide `/events` feed, a replay from the store, tasks/get, tasks/list,
 * pending/list while it waits, the audit log — and no 8-character piece of either token may appear.
 * They are all fed by one choke point (runtime/scrubber.ts via LiveTask), which this proves by attack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../main/domain/redaction.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { REPO_ROOT, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { openStream } from '../integration/streaming-client.js';
import { SECURITY_FIXTURES } from './attack-agents.js';

/** Bytes of reply a task may keep: the "everywhere" turn's content fits, the "cut" turn's does not. */
const CAP = 400;
/** "a"s before the token in the "cut" turn: the cap falls 20 characters into the 43-character token. */
const BEFORE_TOKEN = CAP - 20;

function leaker(dir: string): Record<string, unknown> {
  return {
    kind: 'acp',
    command: [process.execPath, path.join(SECURITY_FIXTURES, 'leak-tokens-acp.mjs')],
    env: { LEAK_TOKEN_FILE: path.join(dir, 'data', 'token') },
    append_decision_contract: false,
    timeout_s: 60,
  };
}

/** Every 8-character piece of each token found in `text`, with the channel's name. */
function leaks(channel: string, text: string, tokens: string[]): string[] {
  const found: string[] = [];
  for (const token of tokens) {
    for (let i = 0; i + 8 <= token.length; i += 1) {
      if (text.includes(token.slice(i, i + 8))) {
        found.push(`${channel}: ${token.slice(i, i + 8)}`);
        break;
      }
    }
  }
  return found;
}

/** Reads the `/events` feed as raw text until `until` holds for what has arrived. */
async function readFeed(
  url: string,
  token: string,
): Promise<{ until(done: (text: string) => boolean): Promise<string>; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${url}/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // The feed's opening comment: the listener is attached from here on.
  while (!text.includes('event feed')) text += decoder.decode((await reader.read()).value, { stream: true });
  return {
    async until(done) {
      while (!done(text)) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      return text;
    },
    close: () => abort.abort(),
  };
}

describe("the bridge's tokens reach no reader through any channel", () => {
  let tb: TestBridge | undefined;
  afterEach(async () => {
    await tb?.cleanup();
    tb = undefined;
  });

  it('thoughts, plans, tool calls, a permission question, parts, file bytes and a cut reply', async () => {
    const dir = tempDir();
    tb = await startTestBridge({
      dir,
      agents: { leaker: leaker(dir) },
      config: { max_artifact_bytes: CAP },
      isolatedEnv: true,
    });
    const install = tb.token;
    const own = deriveAgentToken(install, 'leaker');
    const tokens = [install, own];
    const feed = await readFeed(tb.url, install);

    // Live: the task's own stream, up to the permission question.
    const live = await openStream(tb.url, install, {
      method: 'message/stream',
      params: { agent: 'leaker', text: 'everywhere' },
    });
    const asked = await live.read((f) => f.data.result?.status?.state === 'input-required');
    const taskId = asked.frames[0]!.data.result.id as string;
    const pending = await tb.rpc('pending/list', {});
    expect(pending.result).toBeDefined();
    const question = JSON.stringify(pending.result);
    expect(question).toContain(`curl -d ${REDACTED} ${REDACTED}`);

    // The stream ends with the question; a resumed stream follows the rest live.
    const resumed = await openStream(
      tb.url,
      install,
      { method: 'tasks/resubscribe', params: { id: taskId } },
      { 'last-event-id': String(asked.frames.at(-1)!.id) },
    );
    const answered = await tb.rpc('tasks/answer', { taskId, answer: 'allow' });
    expect(answered.error).toBeUndefined();
    const rest = await resumed.read((f) => f.data.result?.status?.state === 'completed');
    const streamed = { frames: [...asked.frames, ...rest.frames] };

    // The cut: a second task whose reply passes the cap inside the install token.
    const cut = await tb.rpc('message/send', { agent: 'leaker', text: `cut ${BEFORE_TOKEN}` });
    expect(cut.result.status.state).toBe('completed');
    expect(cut.result.metadata.truncated).toMatchObject({ at: CAP });

    const events = await feed.until(
      (text) => text.split(cut.result.id as string).length > 3 && text.includes('"completed"'),
    );
    feed.close();
    const replay = await openStream(
      tb.url,
      install,
      { method: 'tasks/resubscribe', params: { id: taskId } },
      { 'last-event-id': '0' },
    );
    const replayed = await replay.read();
    const got = await tb.rpc('tasks/get', { id: taskId });
    const listed = await tb.rpc('tasks/list', { pageSize: 10, includeArtifacts: true });
    const questions = await tb.rpc('pending/list', { history: 10 });
    const audit = readFileSync(path.join(tb.dataDir, 'audit', 'audit.jsonl'), 'utf8');

    // Each channel did carry what the agent sent, with the tokens taken out.
    const task = got.result;
    const progress = JSON.stringify(streamed.frames.map((f) => f.data.result.metadata ?? null));
    expect(progress).toContain(`thinking about ${REDACTED} ${REDACTED}`);
    expect(progress).toContain(`send ${REDACTED} ${REDACTED} home`);
    const thoughts = streamed.frames.map((f) => f.data.result.metadata?.progress).filter((p) => p?.kind === 'thought');
    expect(thoughts.map((t) => t.text).join('')).toBe(
      `thinking about ${REDACTED} ${REDACTED} and then ${REDACTED} again`,
    );
    expect(progress).toContain(`read ${REDACTED} ${REDACTED}`);
    expect(progress).toContain(`/tmp/${REDACTED}/${REDACTED}.txt`);
    const parts = task.artifacts[0].parts;
    expect(parts).toContainEqual({ kind: 'data', data: { both: `${REDACTED} ${REDACTED}`, [REDACTED]: 1 } });
    expect(parts.at(-1).text).toMatch(new RegExp(`^notes \\[REDACTED\\] \\[REDACTED\\]answer was`));
    const file = parts.find((p: { kind: string }) => p.kind === 'file');
    const bytes = Buffer.from(file.file.bytes, 'base64').toString('utf8');
    expect(bytes).toBe(`\u0000env dump: ${REDACTED} ${REDACTED}\u0001`);
    expect(JSON.stringify(task.metadata.questions)).toContain(`curl -d ${REDACTED} ${REDACTED}`);
    expect(cut.result.artifacts[0].parts[0].text).toBe(`${'a'.repeat(BEFORE_TOKEN)}${REDACTED}${'b'.repeat(10)}`);

    const channels: Record<string, string> = {
      'live SSE': JSON.stringify(streamed.frames),
      'pending/list while waiting': question,
      '/events': events,
      replay: JSON.stringify(replayed.frames),
      'tasks/get': JSON.stringify(got),
      'tasks/list': JSON.stringify(listed),
      'pending/list history': JSON.stringify(questions),
      'the cut reply': JSON.stringify(cut),
      'file bytes': bytes,
      audit,
    };
    expect(Object.entries(channels).flatMap(([name, text]) => leaks(name, text, tokens))).toEqual([]);
  });
});

describe('the choke point holds by construction', () => {
  it('only LiveTask makes task events and writes task changes (the store and its decorator aside)', () => {
    const main = path.join(REPO_ROOT, 'main');
    const files = readdirSync(main, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const makers = files.filter((file) => {
      const rel = file.split(path.sep).join('/');
      if (rel.startsWith('stores/') || rel === 'domain/events.ts' || rel === 'audit/audited-store.ts') return false;
      return /\b(statusUpdate|artifactUpdate)\(|\.commit\(/.test(readFileSync(path.join(main, file), 'utf8'));
    });
    expect(makers.map((f) => f.split(path.sep).join('/'))).toEqual(['runtime/live-task.ts']);
  });
});
