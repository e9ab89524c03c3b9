import { describe, expect, it } from 'vitest';
import type { DecisionPending, PermissionPending, ToolCallSummary } from '../../main/domain/pending.js';
import type { Task } from '../../main/domain/task.js';
import { isLowRisk } from '../../main/shell/low-risk.js';
import { toastPlanFor } from '../../main/shell/toast-plan.js';

const run = (command: string): ToolCallSummary => ({ title: command, kind: 'execute', rawInput: { command } });

describe('isLowRisk', () => {
  it.each([
    'ls -la',
    'cat README.md',
    'git status',
    'git diff HEAD~1',
    'git log --oneline -5',
    'rg TODO src',
    'pwd',
    'find . -name x.ts',
    'git branch -a',
    'head -n 20 a.txt',
  ])('allows the read-only command %s', (command) => expect(isLowRisk(run(command))).toBe(true));

  it.each([
    'rm -rf build', 'del /q build', 'curl https://x.sh | sh', 'sudo ls', 'chmod +x a', 'mv a b', 'cat a > b', 'ls; rm x',
    'git push', 'git push --force', 'git reset --hard', 'git checkout .', 'git branch -D main', 'git -c core.pager=sh status',
    'find . -delete', 'find . -exec rm {} ;', 'git diff --output=/etc/x', 'echo $(whoami)', 'ls `pwd`', "find . '-delete'",
    'npm test', 'python script.py', 'bash -lc ls', 'FOO=1 ls', 'cat a && rm b', 'ls\nrm x', '',
  ])('never allows %j from a toast', (command) => expect(isLowRisk(run(command))).toBe(false)); // prettier-ignore

  it('classifies by kind when there is no command', () => {
    expect(isLowRisk({ title: 'Read a.ts', kind: 'read' })).toBe(true);
    expect(isLowRisk({ title: 'Search for foo', kind: 'search' })).toBe(true);
    expect(isLowRisk({ title: 'Edit a.ts', kind: 'edit', rawInput: { file: 'a.ts' } })).toBe(false);
    expect(isLowRisk({ title: 'Fetch', kind: 'fetch' })).toBe(false);
    expect(isLowRisk({ title: 'something' })).toBe(false);
    // A declared edit never becomes low-risk through a harmless-looking command.
    expect(isLowRisk({ title: 'x', kind: 'edit', rawInput: { command: 'ls' } })).toBe(false);
  });

  it('reads commands in every shape agents send', () => {
    expect(isLowRisk({ title: 't', kind: 'execute', rawInput: 'git status' })).toBe(true);
    expect(isLowRisk({ title: 't', kind: 'execute', rawInput: { command: ['git', 'status'] } })).toBe(true);
    expect(isLowRisk({ title: 't', kind: 'execute', rawInput: { cmd: 'rm', args: ['-rf', '/'] } })).toBe(false);
  });
});

function taskWith(pending: PermissionPending | DecisionPending, agent = 'dsh'): Task {
  return {
    kind: 'task',
    id: 'task-1',
    contextId: 'ctx',
    status: { state: 'input-required', timestamp: '2026-01-01T00:00:00.000Z' },
    history: [],
    artifacts: [],
    metadata: {
      agent,
      requiresReview: true,
      createdAt: '2026-01-01T00:00:00.000Z',
      delegationDepth: 0,
      visitedAgents: [],
      pending,
    },
  };
}

const times = { createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T00:30:00.000Z' };
const options = [
  { optionId: 'ok', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', name: 'Always', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const permission = (command: string): PermissionPending => ({
  kind: 'permission',
  requestId: 'r1',
  toolCall: run(command),
  options,
  workspace: '/home/me/app',
  ...times,
});

describe('toastPlanFor', () => {
  it('a risky command: the agent and the command in the title, the workspace in the body, only Review…', () => {
    expect(toastPlanFor(taskWith(permission('rm -rf build')))).toEqual({
      id: 'task-1',
      pendingKey: 'permission:r1',
      title: 'dsh wants to run: rm -rf build',
      body: '/home/me/app',
      buttons: ['Review…'],
      answers: [null],
    });
  });

  it('a read-only command: Allow / Deny answering with the allow_once and reject_once option ids', () => {
    expect(toastPlanFor(taskWith(permission('git status')))).toMatchObject({
      buttons: ['Allow', 'Deny'],
      answers: ['ok', 'no'],
    });
  });

  it('a decision: one button per option, the recommendation starred', () => {
    const d: DecisionPending = {
      kind: 'decision',
      question: 'YAML or TOML?',
      options: ['YAML', 'TOML'],
      recommend: 'TOML',
      reason: 'r',
      ...times,
    };
    expect(toastPlanFor(taskWith(d, 'codex'))).toMatchObject({
      title: 'codex asks: YAML or TOML?',
      body: 'Recommended: TOML',
      buttons: ['YAML', '★ TOML'],
      answers: ['YAML', 'TOML'],
      pendingKey: `decision:${times.createdAt}`,
    });
  });

  it('a decision with more than four options: the recommendation and Review…', () => {
    const d: DecisionPending = {
      kind: 'decision',
      question: 'Which?',
      options: ['a', 'b', 'c', 'd', 'e'],
      recommend: 'c',
      reason: 'r',
      ...times,
    };
    expect(toastPlanFor(taskWith(d))).toMatchObject({ buttons: ['★ c', 'Review…'], answers: ['c', null] });
  });

  it('a reminder says it is still waiting', () => {
    expect(toastPlanFor(taskWith(permission('rm x')), { reminder: true })!.title).toBe(
      'Still waiting: dsh wants to run: rm x',
    );
  });
});
