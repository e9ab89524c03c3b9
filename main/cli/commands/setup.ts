/** `scan` (find installed agents, propose config entries) and `skill install --for <agent>`. */
import { copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { stringify } from 'yaml';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { skillFile } from '../install-paths.js';
import { KNOWN_AGENTS, SKILL_TARGETS, skillFolder, type SkillTarget } from '../known-agents.js';
import { resolveProgram } from '../which.js';

export function registerSetup(program: Command, run: Runner): void {
  program
    .command('scan')
    .description(
      'look on PATH for known agents (Claude Code, Codex, Gemini, Hermes, dsh, grok) and propose config.yaml entries',
    )
    .action(run(scan));
  program
    .command('skill')
    .description("SKILL.md, the agents' guide to contactor")
    .command('install')
    .description("copy SKILL.md into an agent's skills folder")
    .requiredOption('--for <agent>', `one of ${SKILL_TARGETS.join(', ')}`, parseTarget)
    .option('--dir <dir>', 'install into this folder instead')
    .action(run(installSkill));
}

async function scan(cli: CliContext): Promise<number> {
  const found = KNOWN_AGENTS.flatMap((known) => {
    const where = resolveProgram(known.program, cli.env);
    return where ? [{ ...known, path: where }] : [];
  });
  const agents = Object.fromEntries(found.map((f) => [f.name, f.entry]));
  if (cli.json) {
    cli.out.doc({
      found: found.map(({ name, product, program, path: p, entry }) => ({ name, product, program, path: p, entry })),
      proposal: { agents },
    });
    return EXIT.completed;
  }
  if (found.length === 0) {
    cli.out.line(`no known agents on PATH (looked for ${KNOWN_AGENTS.map((k) => k.program).join(', ')})`);
    return EXIT.completed;
  }
  for (const f of found) cli.out.note(`found ${f.product}: ${f.path}`);
  cli.out.line('# Add to config.yaml (`contactor config edit`), set cwd, then `contactor down && contactor up`:');
  cli.out.text(stringify({ agents }));
  return EXIT.completed;
}

async function installSkill(cli: CliContext, opts: { for: SkillTarget; dir?: string }): Promise<number> {
  const source = skillFile();
  if (!source) throw new CliError('SKILL.md is not in this installation; reinstall contactor', EXIT.usage);
  const dir = opts.dir
    ? path.resolve(opts.dir)
    : path.join(...skillFolder(opts.for, cli.env.HOME || homedir(), cli.env, process.platform));
  const target = path.join(dir, 'SKILL.md');
  try {
    mkdirSync(dir, { recursive: true });
    copyFileSync(source, target);
  } catch (err) {
    throw new CliError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, EXIT.usage);
  }
  if (cli.json) cli.out.doc({ agent: opts.for, path: target });
  else cli.out.line(`installed SKILL.md for ${opts.for} at ${target}`);
  return EXIT.completed;
}

function parseTarget(value: string): SkillTarget {
  if (!(SKILL_TARGETS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`use one of ${SKILL_TARGETS.join(', ')}`);
  return value as SkillTarget;
}
