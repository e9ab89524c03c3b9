/**
 * No unmodified key approves. The key map is data (renderer/choices.ts); the Chromium test
 * (tests/e2e/approval-window.test.ts) presses the keys for real.
 */
import { describe, expect, it } from 'vitest';
import type { PendingItem } from '../../main/schema/ipc.js';
import { choicesOf, keyHint } from '../../renderer/choices.js';

const times = { createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T00:30:00.000Z' };

function permission(kinds: string[]): PendingItem {
  return {
    taskId: 't',
    agent: 'dsh',
    request: 'r',
    pending: {
      kind: 'permission',
      requestId: 'r1',
      toolCall: { title: 'rm -rf build', kind: 'execute' },
      options: kinds.map((kind, i) => ({ optionId: `o${i}`, name: kind, kind })),
      ...times,
    },
  };
}

describe('approval window keys', () => {
  it('a permission: D denies, Alt+A or Alt+digit allows once, Allow always has no key', () => {
    const keys = choicesOf(permission(['allow_always', 'allow_once', 'reject_once', 'reject_always'])).map((c) => ({
      label: c.label,
      keys: c.keys,
      altKeys: c.altKeys,
    }));
    expect(keys).toEqual([
      { label: 'Deny', keys: ['d'], altKeys: ['3'] },
      { label: 'Deny always', keys: [], altKeys: ['4'] },
      { label: 'Allow once', keys: [], altKeys: ['a', '2'] },
      { label: 'Allow always', keys: [], altKeys: [] },
    ]);
  });

  it('no choice but a refusal ever has an unmodified key, whatever the agent offers', () => {
    const all = choicesOf(permission(['allow_once', 'allow_always', 'custom_allow', 'reject_once', 'reject_always']));
    for (const c of all) if (c.keys.length) expect(c.tone).toBe('deny');
    expect(all.find((c) => c.label === 'custom_allow')!.altKeys).toEqual([]);
  });

  it('a decision: Alt+1…9 only', () => {
    const item: PendingItem = {
      taskId: 't',
      agent: 'a',
      request: 'r',
      pending: { kind: 'decision', question: 'q', options: ['YAML', 'TOML'], recommend: 'YAML', reason: 'r', ...times },
    };
    expect(choicesOf(item).map((c) => [c.keys, c.altKeys])).toEqual([
      [[], ['1']],
      [[], ['2']],
    ]);
    // The hint names only the keys a decision has: no D, no Alt+A.
    expect(keyHint(choicesOf(item))).toBe('Alt+1–2 option by number');
  });

  it("a permission's hint names its own keys", () => {
    expect(keyHint(choicesOf(permission(['allow_once', 'reject_once', 'allow_always'])))).toBe(
      'D deny · Alt+A allow once · Alt+1–2 option by number',
    );
    // An agent that offers no way to refuse: nothing says D.
    expect(keyHint(choicesOf(permission(['allow_always'])))).toBe('');
  });
});
