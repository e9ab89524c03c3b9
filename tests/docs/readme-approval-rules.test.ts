/**
 * The approval rules the README shows as an example do what a reader takes them to do: its deny rule catches
 * a recursive `rm` however its flags are written (`rm -rf` was the whole pattern once, and `rm -fr` went
 * through), and nothing that only looks like one. The README's YAML is parsed and validated as config.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { matchRule } from '../../main/runtime/approval-rules.js';
import { AgentConfigSchema } from '../../main/schema/config.js';

const README = readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

function exampleRules(): Parameters<typeof matchRule>[0] {
  const block = /```yaml\n(agents:\n {2}dsh:[\s\S]*?)```/.exec(README)![1]!;
  const agent = AgentConfigSchema.parse((parse(block) as { agents: { dsh: unknown } }).agents.dsh);
  return agent.approval_rules;
}

/** Command → the README's rules' verdict (undefined: no rule matches, the person is asked). */
const CASES: [string, string | undefined][] = [
  ['rm -rf /tmp/build', 'deny'],
  ['rm -fr build', 'deny'],
  ['rm -r -f build', 'deny'],
  ['rm -f -r build', 'deny'],
  ['rm -Rf build', 'deny'],
  ['rm --recursive build', 'deny'],
  ['sudo rm -rf /', 'deny'],
  ['rm build -r', 'deny'],
  ['rm notes.txt', undefined],
  ['rm -f my-report.txt', undefined],
  ['npm run format', undefined],
  ['git rm -q old.txt', undefined],
];

describe("the README's approval rules", () => {
  it('deny a recursive rm in every spelling of its flags, and only that', () => {
    const rules = exampleRules();
    const verdicts = CASES.map(([command]) => [
      command,
      matchRule(rules, { title: 'Run command', kind: 'execute', rawInput: { command } })?.action,
    ]);
    expect(verdicts).toEqual(CASES);
  });
});
