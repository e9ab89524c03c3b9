/** `config path | check | edit`. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { resourcesDir } from '../install-paths.js';
import { configLocation, readConfig } from '../settings.js';

export function registerConfig(program: Command, run: Runner): void {
  const config = program.command('config').description('the config file: where it is, whether it is valid, edit it');
  config.command('path').description('print where the config file is').action(run(showPath));
  config
    .command('check')
    .description('validate the config file (exit 2 with file:line on a problem)')
    .action(run(check));
  config
    .command('edit')
    .description('open the config file in $VISUAL / $EDITOR (notepad on Windows), then check it')
    .action(run(edit));
}

async function showPath(cli: CliContext): Promise<number> {
  const where = configLocation(cli.opts, cli.env);
  if (cli.json) cli.out.doc(where);
  else
    cli.out.line(
      where.exists
        ? where.path
        : `${where.path} (not created yet; \`contactor up\` or \`contactor config edit\` creates it)`,
    );
  return EXIT.completed;
}

async function check(cli: CliContext): Promise<number> {
  const where = configLocation(cli.opts, cli.env);
  const config = readConfig(where.path, cli.env);
  const agents = Object.keys(config.agents);
  if (cli.json) cli.out.doc({ ok: true, path: where.path, agents });
  else
    cli.out.line(
      `OK ${where.path} (${agents.length} agent${agents.length === 1 ? '' : 's'}: ${agents.join(', ') || 'none'})`,
    );
  return EXIT.completed;
}

async function edit(cli: CliContext): Promise<number> {
  const where = configLocation(cli.opts, cli.env);
  if (!where.exists) {
    mkdirSync(path.dirname(where.path), { recursive: true });
    copyFileSync(path.join(resourcesDir(), 'config.example.yaml'), where.path);
  }
  const editor = cli.env.VISUAL || cli.env.EDITOR || (process.platform === 'win32' ? 'notepad' : 'vi');
  // $EDITOR may carry arguments ("code --wait"), so it goes through the shell like git does it.
  const result = spawnSync(`${editor} "${where.path}"`, { stdio: 'inherit', shell: true });
  if (result.status !== 0)
    throw new CliError(`the editor (${editor}) exited with ${result.status ?? result.signal}; set $EDITOR`, EXIT.usage);
  return check(cli);
}
