/**
 * `completion bash|zsh|fish|powershell`: the shell's completion script, made from this program's own command
 * tree (completion/). `__complete-agents` (hidden) is what the scripts call for agent names: it reads only
 * the config file's `agents` keys — no bridge, no validation — so a Tab never waits, and prints nothing when
 * there is no config to read.
 */
import { readFileSync } from 'node:fs';
import { Argument, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { AGENTS_HELPER, completionTree } from '../completion/command-tree.js';
import { completionScript, SHELLS, type Shell } from '../completion/completion-scripts.js';
import type { CliContext, Runner } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { configLocation } from '../settings.js';

export function registerCompletion(program: Command, run: Runner): void {
  program
    .command('completion')
    .description('print the shell completion script (verbs, options, agent names): see README "Shell completion"')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action(run((cli: CliContext, shell: Shell) => script(cli, program, shell)));
  program.command(AGENTS_HELPER, { hidden: true }).action(run(agentNames));
}

async function script(cli: CliContext, program: Command, shell: Shell): Promise<number> {
  cli.out.text(completionScript(shell, completionTree(program)));
  return EXIT.completed;
}

async function agentNames(cli: CliContext): Promise<number> {
  for (const name of configuredAgents(cli)) cli.out.line(name);
  return EXIT.completed;
}

function configuredAgents(cli: CliContext): string[] {
  try {
    const where = configLocation(cli.opts, cli.env);
    const doc = parseYaml(readFileSync(where.path, 'utf8')) as { agents?: unknown } | null;
    const agents = doc?.agents;
    if (!agents || typeof agents !== 'object') return [];
    // A name a shell would split or expand is left out rather than offered wrong.
    return Object.keys(agents).filter((name) => /^[\w.@+-]+$/.test(name));
  } catch {
    return [];
  }
}
