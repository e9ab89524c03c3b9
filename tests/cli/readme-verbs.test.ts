/** The README's CLI section lists every verb the CLI has, and no other (main/cli/program.ts). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(join(resolve(import.meta.dirname, '../..'), 'README.md'), 'utf8');

describe('README.md', () => {
  it('the CLI section names exactly the CLI’s verbs', async () => {
    const { buildProgram } = await import('../../main/cli/program.js');
    const program = buildProgram(() => async () => undefined, '0');
    // Hidden verbs (the completion scripts' helper) are not for people.
    const commands = program
      .createHelp()
      .visibleCommands(program)
      .map((c) => c.name());
    const section = readme.slice(readme.indexOf('\n## CLI\n'));
    const list = /`contactor ([^`]+)`/.exec(section.replace(/\n/g, ' '))![1]!;
    const listed = list.split('|').map((v) => v.trim().split(' ')[0]!);
    expect([...listed].sort()).toEqual([...commands].sort());
  });
});
