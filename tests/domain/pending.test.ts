import { describe, expect, it } from 'vitest';
import {
  describePending,
  sameToolCall,
  type DecisionPending,
  type PermissionPending,
} from '../../main/domain/pending.js';

const times = { createdAt: '2025-01-01T00:00:00.000Z', expiresAt: '2025-01-01T00:30:00.000Z' };

describe('describePending', () => {
  it('names the agent, the tool call and every option with its id for a permission', () => {
    const pending: PermissionPending = {
      kind: 'permission',
      requestId: 'r-1',
      toolCall: { title: 'Run `rm -rf build`', kind: 'execute', rawInput: { command: 'rm -rf build' } },
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
      ...times,
    };
    expect(describePending(pending, 'claude')).toBe(
      'claude asks permission: Run `rm -rf build`. Answer with one of: Allow once (allow), Reject (reject).',
    );
  });

  it('shows the question, numbered options and the recommendation for a decision', () => {
    const pending: DecisionPending = {
      kind: 'decision',
      question: 'Which config format?',
      options: ['YAML', 'TOML'],
      recommend: 'TOML',
      reason: 'comments and no indentation traps',
      ...times,
    };
    expect(describePending(pending, 'codex')).toBe(
      'Which config format?\n\n1. YAML\n2. TOML\n\nRecommended: TOML (comments and no indentation traps)',
    );
  });
});

describe('sameToolCall (a verdict carried over a restart answers only the very same call)', () => {
  const run = (command: string, extra: Record<string, unknown> = {}) => ({
    title: 'Run',
    rawInput: { command, ...extra },
  });

  it('matches the same command, whatever else the re-issued request carries (a new call id)', () => {
    expect(sameToolCall(run('npm test', { call_id: 'a' }), run('npm test', { call_id: 'b' }))).toBe(true);
  });

  it('never matches another command under the same title (the attack: approve one call, run another)', () => {
    expect(sameToolCall(run('npm test'), run('rm -rf ~/important'))).toBe(false);
    expect(sameToolCall(run('npm test'), { title: 'Run' })).toBe(false);
  });

  it('without a command, compares the raw input with keys in any order; a title alone never matches', () => {
    const a = { title: 'Edit', rawInput: { path: 'a.txt', content: 'x' } };
    expect(sameToolCall(a, { title: 'Edit', rawInput: { content: 'x', path: 'a.txt' } })).toBe(true);
    expect(sameToolCall(a, { title: 'Edit', rawInput: { path: 'b.txt', content: 'x' } })).toBe(false);
    expect(sameToolCall({ title: 'Edit' }, { title: 'Edit' })).toBe(false);
  });

  it('without any raw input (Gemini CLI), matches what the person was shown: title, kind and locations', () => {
    const touch = { title: 'touch /w/a.txt', kind: 'execute' };
    expect(sameToolCall(touch, { ...touch })).toBe(true);
    expect(sameToolCall(touch, { title: 'rm -rf /w', kind: 'execute' })).toBe(false);
    expect(sameToolCall(touch, { ...touch, locations: [{ path: '/etc/passwd' }] })).toBe(false);
    expect(sameToolCall(touch, { ...touch, rawInput: { command: 'touch /w/a.txt' } })).toBe(false);
  });
});
