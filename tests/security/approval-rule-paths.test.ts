/**
 * A standing approval rule's `paths` go through the one containment check (main/platform/path-containment.ts),
 * never a prefix of their own. The attack: config allows reads under /work/app without asking; an agent asks to
 * read a sibling folder whose name starts the same, climbs out with `..`, changes case on a case-sensitive
 * system, or reads through a symlink that leads out. Each must reach the person. A deny rule the agent writes
 * its way around (a symlink into the denied folder, a relative path) still denies.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { approvalRulePaths } from '../../main/platform/path-containment.js';
import { matchRule, type ApprovalRule } from '../../main/runtime/approval-rules.js';
import { AskingBackend, permissionRequest } from '../fixtures/fake-backends.js';
import { Core } from '../runtime/core.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'contactor-rule-paths-'));
const app = path.join(root, 'app');
const secrets = path.join(root, 'secrets');
mkdirSync(app);
mkdirSync(secrets);
mkdirSync(path.join(root, 'app-secrets'));
writeFileSync(path.join(secrets, 'key'), 'k');
symlinkSync(secrets, path.join(app, 'link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALLOW_APP: ApprovalRule[] = [{ action: 'allow', kinds: ['read'], paths: [app] }];
const DENY_SECRETS: ApprovalRule[] = [
  { action: 'deny', paths: [secrets] },
  { action: 'allow', kinds: ['read'] },
];

/** [location (relative to the temp root unless absolute), allow-rule verdict, deny-rule verdict] */
const TABLE: [string, 'allow' | 'ask', 'deny' | 'allow'][] = [
  ['app/readme.md', 'allow', 'allow'],
  ['app', 'allow', 'allow'],
  ['app/sub/dir/file.ts', 'allow', 'allow'],
  ['app-secrets/key', 'ask', 'allow'],
  ['app/../secrets/key', 'ask', 'deny'],
  ['app/link/key', 'ask', 'deny'],
  ['APP/readme.md', 'ask', 'allow'],
  ['secrets/key', 'ask', 'deny'],
  ['secrets', 'ask', 'deny'],
  ['relative/readme.md', 'ask', 'deny'],
  ['C:\\work\\app\\readme.md', 'ask', 'allow'],
];

function located(where: string): string {
  return where.startsWith('relative/') || /^[A-Z]:\\/.test(where) ? where : `${root}/${where}`; // as the agent wrote it: no `..` resolved
}

describe.skipIf(process.platform === 'win32')('approval rule paths, judged by path-containment', () => {
  it.each(TABLE)('%s: allow rule → %s, deny rule → %s', (where, allowVerdict, denyVerdict) => {
    const toolCall = { title: 'Read', kind: 'read', locations: [{ path: located(where) }] };
    expect(matchRule(ALLOW_APP, toolCall, approvalRulePaths)?.action ?? 'ask').toBe(allowVerdict);
    expect(matchRule(DENY_SECRETS, toolCall, approvalRulePaths)?.action).toBe(denyVerdict);
  });

  it('without a judge, an allow rule with paths never matches and a deny rule with paths always does', () => {
    const toolCall = { title: 'Read', kind: 'read', locations: [{ path: path.join(app, 'readme.md') }] };
    expect(matchRule(ALLOW_APP, toolCall)).toBeUndefined();
    expect(matchRule(DENY_SECRETS, toolCall)?.action).toBe('deny');
  });

  describe('through the runtime, as the agent asks', () => {
    let core: Core;
    afterEach(() => core.close());

    it('a read of a sibling folder named like the allowed one waits for the person', async () => {
      core = new Core();
      const sibling = path.join(root, 'app-secrets', 'key');
      core.add(
        'agent',
        new AskingBackend([permissionRequest('Read', { kind: 'read', locations: [{ path: sibling }] })]),
        {
          approvalRules: ALLOW_APP,
          pathJudge: approvalRulePaths,
        },
      );
      const task = await core.send('agent', 'look', { blocking: true });
      expect(task.status.state).toBe('input-required');
      expect(task.metadata.questions).toBeUndefined();
    });

    it('a read through a symlink into a denied folder is denied', async () => {
      core = new Core();
      const through = path.join(app, 'link', 'key');
      const backend = core.add(
        'agent',
        new AskingBackend([permissionRequest('Read', { kind: 'read', locations: [{ path: through }] })]),
        { approvalRules: DENY_SECRETS, pathJudge: approvalRulePaths },
      );
      const task = await core.send('agent', 'look', { blocking: true });
      expect(task.status.state).toBe('completed');
      expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'reject-once' }]);
    });
  });
});
