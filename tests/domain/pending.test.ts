import { describe, expect, it } from 'vitest';
import { describePending, type DecisionPending, type PermissionPending } from '../../main/domain/pending.js';

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
