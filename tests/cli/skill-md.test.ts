/** SKILL.md is read by agents and installed into their skill folders; dsh accepts only `name` and `description`. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const text = readFileSync(join(resolve(import.meta.dirname, '../..'), 'SKILL.md'), 'utf8');

/** The verbs the CLI has, from its own table (main/cli/program.ts): no copy to fall out of date. */
async function cliVerbs(): Promise<string[]> {
  const { buildProgram } = await import('../../main/cli/program.js');
  return buildProgram(() => async () => undefined, '0').commands.map((c) => c.name());
}

describe('SKILL.md', () => {
  it('has frontmatter with exactly name and description', () => {
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(match).not.toBeNull();
    const front = parse(match![1]!) as Record<string, unknown>;
    expect(Object.keys(front)).toEqual(['name', 'description']);
    expect(front.name).toBe('contactor');
    expect(typeof front.description).toBe('string');
  });

  it('uses only the CLI verbs that exist (main/cli/program.ts)', async () => {
    const verbs = await cliVerbs();
    expect(verbs.length).toBeGreaterThan(10);
    const used = [...text.matchAll(/(?:^|`|\| )contactor ([a-z-]+)/gm)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((v) => !verbs.includes(v))).toEqual([]);
  });

  it('documents every exit code of the CLI contract', () => {
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(text).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });
});
