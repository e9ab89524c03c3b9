/**
 * `contactor mcp`: the contactor MCP server on stdio (docs/contract.md#mcp-tools), for any MCP client
 * (`claude mcp add contactor -- contactor mcp`). It talks to the running bridge (started if none, on the first
 * tool call) and acts as an agent, never as the person (SECURITY.md#who-may-do-what): launched by an agent
 * of the bridge it is that agent (CONTACTOR_TOKEN); otherwise an external agent named by `--as` or by the
 * client's own name, with that name's own token.
 */
import type { Command } from 'commander';
import { createContactorMcpServer } from '../../front-doors/mcp/mcp-server.js';
import { serveOnStdio } from '../../front-doors/mcp/stdio-door.js';
import { externalNameOf } from '../../front-doors/mcp/mcp-identity.js';
import { DEFAULT_TOOL_SETTINGS } from '../../front-doors/mcp/tools.js';
import { deriveExternalAgentToken } from '../../transport/caller-tokens.js';
import { AGENT_NAME } from '../../schema/config.js';
import { ensureBridge } from '../bridge-client/launch-bridge.js';
import { readTokenFile } from '../bridge-client/locate.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { createHttpRpc } from '../mcp/http-rpc.js';
import { cliVersion } from '../version.js';
import { parseSeconds } from './arguments.js';
import type { BridgeRpc } from '../../front-doors/mcp/bridge-rpc.js';

interface McpOptions {
  as?: string;
  wait?: number;
}

export function registerMcp(program: Command, run: Runner): void {
  program
    .command('mcp')
    .description(
      'an MCP server on stdio: MCP clients (Claude Code, Codex, Gemini CLI, ...) list the agents and delegate to them by tool call',
    )
    .option('--as <name>', "the agent name this client acts as (default: the client's own name)")
    .option('--wait <seconds>', 'how long send_task waits before it returns the task id to follow', parseSeconds)
    .action(run(mcp));
}

async function mcp(cli: CliContext, opts: McpOptions): Promise<number> {
  if (cli.json) throw new CliError('mcp speaks MCP (JSON-RPC) already; drop --json', EXIT.usage);
  if (opts.as !== undefined && !AGENT_NAME.test(opts.as))
    throw new CliError(`--as "${opts.as}" is not an agent name: letters, digits, _ . - (at most 64)`, EXIT.usage);
  let connected: Promise<BridgeRpc> | undefined;
  const server = createContactorMcpServer({
    version: cliVersion(),
    settings: { ...DEFAULT_TOOL_SETTINGS, ...(opts.wait !== undefined ? { waitMs: opts.wait * 1000 } : {}) },
    // A bridge that cannot start fails this call only: the next tool call tries again.
    rpc: () =>
      (connected ??= connect(cli, opts, server.server.getClientVersion()?.name).catch((err: unknown) => {
        connected = undefined;
        throw err;
      })),
  });
  await serveOnStdio(server);
  return EXIT.completed;
}

/**
 * The bridge, and who this server is to it. An agent the bridge started has CONTACTOR_AGENT beside its own
 * CONTACTOR_TOKEN: that token proves which agent. Anyone else is an external agent whose token is derived
 * from the install token (the data dir's, or the one CONTACTOR_TOKEN carries for the person): the install
 * token itself is never sent, so this server never acts as the person.
 */
async function connect(cli: CliContext, opts: McpOptions, clientName: string | undefined): Promise<BridgeRpc> {
  const { address } = await ensureBridge(cli.opts, cli.env);
  const inherited = cli.env.CONTACTOR_TOKEN || undefined;
  const stored = readTokenFile(address.dataDir) ?? address.discovery?.token;
  if (cli.env.CONTACTOR_AGENT && inherited && inherited !== stored)
    return createHttpRpc({ ...address, token: inherited }, `agent ${cli.env.CONTACTOR_AGENT}`);
  const install = stored ?? inherited;
  const name = opts.as ?? externalNameOf(clientName);
  if (!install) {
    throw new CliError(
      `no install token found (${address.dataDir}, CONTACTOR_TOKEN): contactor mcp derives the token of external agent "${name}" from it; run it as the user who runs the bridge`,
      EXIT.unauthorized,
    );
  }
  return createHttpRpc({ ...address, token: deriveExternalAgentToken(install, name) }, `external agent "${name}"`);
}
