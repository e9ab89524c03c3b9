/**
 * `contactor help [verb...]`: that verb's help on stdout, exit 0. An unknown verb is a usage error with
 * one line saying so (commander's own help command printed the whole help to stderr, exit 2, no word why).
 */
import type { Command } from 'commander';
import { likelyTypo } from '../../config/key-suggestion.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';

export function registerHelp(program: Command, run: Runner): void {
  program.helpCommand(false);
  program
    .command('help')
    .description('show the help of a command (`contactor help send`), or of contactor itself')
    .argument('[command...]', 'the command, e.g. send, or token rotate')
    .action(run((cli: CliContext, words: string[] = []) => help(cli, program, words)));
}

async function help(_cli: CliContext, program: Command, words: string[]): Promise<number> {
  let command = program;
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) throw unknownCommand(command, words.slice(0, words.indexOf(word) + 1));
    command = next;
  }
  // Exactly what `contactor <verb> --help` prints (with the exit codes after the top-level help).
  command.outputHelp();
  return EXIT.completed;
}

function unknownCommand(parent: Command, words: string[]): CliError {
  const names = parent.commands.map((c) => c.name()).filter((n) => n !== 'help');
  const guess = likelyTypo(words.at(-1)!, names);
  const prefix = parent.parent ? `contactor ${parent.name()} ` : 'contactor ';
  return new CliError(
    `no command "${words.join(' ')}"${guess ? `; did you mean \`${prefix}${guess}\`?` : ''} (\`${prefix.trim()} --help\` lists them${words[0] === 'setup' && words.length === 1 ? '; setting up is `contactor scan`, `contactor doctor` and `contactor skill install`' : ''})`,
    EXIT.usage,
  );
}
