/** SKILL.md is read by agents and installed into their skill folders; dsh accepts only `name` and `description`. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const text = readFileSync(join(resolve(import.meta.dirname, '../..'), 'SKILL.md'), 'utf8');
const VERBS = [
  'up',
  'down',
  'status',
  'agents',
  'card',
  'send',
  'get',
  'watch',
  'pending',
  'answer',
  'cancel',
  'tasks',
  'doctor',
];

describe('SKILL.md', () => {
  it('has frontmatter with exactly name and description', () => {
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(match).not.toBeNull();
    const front = parse(match![1]!) as Record<string, unknown>;
    expect(Object.keys(front)).toEqual(['name', 'description']);
    expect(front.name).toBe('contactor');
    expect(typeof front.description).toBe('string');
  });

  it('uses only the CLI verbs that exist', () => {
    const used = [...text.matchAll(/(?:^|`|\| )contactor ([a-z-]+)/gm)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((v) => !VERBS.includes(v))).toEqual([]);
  });

  it('names only verbs the CLI has (main/cli/program.ts)', async () => {
    const { buildProgram } = await import('../../main/cli/program.js');
    const commands = buildProgram(() => async () => undefined, '0').commands.map((c) => c.name());
    expect(VERBS.filter((v) => !commands.includes(v))).toEqual([]);
  });

  it('documents every exit code of the CLI contract', () => {
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(text).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });
});
