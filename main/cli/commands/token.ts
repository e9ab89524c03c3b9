/** `token` (print it, to give to another client) and `token rotate` (a new one for the next start). */
import path from 'node:path';
import type { Command } from 'commander';
import { rotateToken } from '../../config/data-dir.js';
import { deriveExternalAgentToken } from '../../transport/caller-tokens.js';
import { AGENT_NAME } from '../../schema/config.js';
import { readTokenFile } from '../bridge-client/locate.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { dataDirOf } from '../settings.js';

export function registerToken(program: Command, run: Runner): void {
  const token = program
    .command('token')
    .description("print the bridge's bearer token (for other clients: Authorization: Bearer <token>)")
    .option(
      '--agent <name>',
      "print an external agent's own token instead (an MCP client at /mcp: it acts as that agent, never as you)",
    )
    .action(run(show));
  token
    .command('rotate')
    .description('make a new token; the running bridge keeps accepting the old one until it restarts')
    .action(run(rotate));
}

async function show(cli: CliContext, opts: { agent?: string }): Promise<number> {
  if (opts.agent !== undefined) return showAgentToken(cli, opts.agent);
  const { token, url } = cli.address();
  if (!token)
    throw new CliError('no token yet: the bridge creates one on its first start (`contactor up`)', EXIT.usage);
  if (cli.json) cli.out.doc({ token, url });
  else cli.out.line(token);
  return EXIT.completed;
}

/**
 * An external agent's token (SECURITY.md#the-token), made from the install token in the data dir, never from
 * CONTACTOR_TOKEN: inside an agent that is the agent's own token, and it makes no valid external token.
 */
async function showAgentToken(cli: CliContext, agent: string): Promise<number> {
  if (!AGENT_NAME.test(agent))
    throw new CliError(`"${agent}" is not an agent name: letters, digits, _ . - (at most 64)`, EXIT.usage);
  const install = readTokenFile(dataDirOf(cli.opts, cli.env));
  if (!install)
    throw new CliError('no token yet: the bridge creates one on its first start (`contactor up`)', EXIT.usage);
  const token = deriveExternalAgentToken(install, agent);
  const { url } = cli.address();
  if (cli.json) cli.out.doc({ agent, token, url: `${url}/mcp` });
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
