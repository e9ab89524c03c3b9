/** `token` (print it, to give to another client) and `token rotate` (a new one for the next start). */
import path from 'node:path';
import type { Command } from 'commander';
import { rotateToken } from '../../config/data-dir.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { dataDirOf } from '../settings.js';

export function registerToken(program: Command, run: Runner): void {
  const token = program
    .command('token')
    .description("print the bridge's bearer token (for other clients: Authorization: Bearer <token>)")
    .action(run(show));
  token
    .command('rotate')
    .description('make a new token; the running bridge keeps accepting the old one until it restarts')
    .action(run(rotate));
}

async function show(cli: CliContext): Promise<number> {
  const { token, url } = cli.address();
  if (!token)
    throw new CliError('no token yet: the bridge creates one on its first start (`contactor up`)', EXIT.usage);
  if (cli.json) cli.out.doc({ token, url });
  else cli.out.line(token);
  return EXIT.completed;
}

async function rotate(cli: CliContext): Promise<number> {
  const dataDir = dataDirOf(cli.opts, cli.env);
  rotateToken(dataDir);
  const file = path.join(dataDir, 'token');
  if (cli.json) cli.out.doc({ tokenFile: file, restartRequired: true });
  else cli.out.line(`new token written to ${file}; restart the bridge to use it: \`contactor down && contactor up\``);
  return EXIT.completed;
}
