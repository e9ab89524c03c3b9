/**
 * `contactor mcp`: the contactor MCP server on stdio (docs/contract.md#mcp-tools), for any MCP client
 * (`claude mcp add contactor -- contactor mcp`). It talks to the running bridge (started if none, on the first
 * tool call) and acts as an agent, never as the person (SECURITY.md#who-may-do-what): launched by an agent
 * of the bridge it is that agent (CONTACTOR_TOKEN); otherwise an external agent named by `--as` or by the
 * client's own name, with that name's own token.
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { createContactorMcpServer } from '../../front-doors/mcp/mcp-server.js';
import { serveOnStdio } from '../../front-doors/mcp/stdio-door.js';
import { externalNameCandidates } from '../../front-doors/mcp/mcp-identity.js';
import { DEFAULT_TOOL_SETTINGS } from '../../front-doors/mcp/tools.js';
import { deriveExternalAgentToken } from '../../transport/caller-tokens.js';
import { AGENT_NAME } from '../../schema/config.js';
import { ensureBridge } from '../bridge-client/launch-bridge.js';
import { readTokenFile } from '../bridge-client/locate.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { createHttpRpc } from '../mcp/http-rpc.js';
import { configLocation, readConfig } from '../settings.js';
import { cliVersion } from '../version.js';
import { parseSeconds } from './arguments.js';
import { BridgeRpcError, type BridgeRpc } from '../../front-doors/mcp/bridge-rpc.js';

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
    .option(
      '--wait <seconds>',
      'how long send_task waits before it returns the task id to follow (default: mcp_wait_seconds in config.yaml)',
      parseSeconds,
    )
    .action(run(mcp));
}

async function mcp(cli: CliContext, opts: McpOptions): Promise<number> {
  if (cli.json) throw new CliError('mcp speaks MCP (JSON-RPC) already; drop --json', EXIT.usage);
  if (opts.as !== undefined && !AGENT_NAME.test(opts.as))
    throw new CliError(`--as "${opts.as}" is not an agent name: letters, digits, _ . - (at most 64)`, EXIT.usage);
  let connected: Promise<BridgeRpc> | undefined;
  const configured = configuredWait(cli);
  const server = createContactorMcpServer({
    version: cliVersion(),
    settings: {
      ...DEFAULT_TOOL_SETTINGS,
      get waitMs() {
        return opts.wait !== undefined ? opts.wait * 1000 : configured();
      },
    },
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
 * `mcp_wait_seconds` from config.yaml, read again at each use so an edit applies as it does in the bridge; a
 * file that is missing or does not validate leaves the last good value (at first the default).
 */
function configuredWait(cli: CliContext): () => number {
  let last = DEFAULT_TOOL_SETTINGS.waitMs;
  return () => {
    try {
      const where = configLocation(cli.opts, cli.env);
      if (where.exists) last = readConfig(where.path, cli.env).mcp_wait_seconds * 1000;
    } catch {
      // The bridge keeps its last good config too; `contactor config check` says what is wrong.
    }
    return last;
  };
}

/**
 * The bridge, and who this server is to it: the identity comes from the credential, never from the env's
 * CONTACTOR_AGENT nor from `--as` (SECURITY.md#who-may-do-what, "MCP clients"). A CONTACTOR_TOKEN that is not
 * the install token (an agent the bridge started, or an external agent's `ext.` token) is sent as it is: the
 * bridge says whose it is. Only the install token is never sent: from it this server derives the token of an
 * external agent (named by `--as` or the client's name), so it never acts as the person.
 */
async function connect(cli: CliContext, opts: McpOptions, clientName: string | undefined): Promise<BridgeRpc> {
  const { address } = await ensureBridge(cli.opts, cli.env);
  const inherited = cli.env.CONTACTOR_TOKEN || undefined;
  const stored = readTokenFile(address.dataDir) ?? address.discovery?.token;
  const asInherited = (): BridgeRpc =>
    createHttpRpc({ ...address, token: inherited! }, 'the agent whose token CONTACTOR_TOKEN holds');
  if (inherited && (inherited.startsWith('ext.') || (stored !== undefined && inherited !== stored)))
    return asInherited();
  const install = stored ?? inherited;
  const names = opts.as !== undefined ? [opts.as] : externalNameCandidates(clientName);
  if (!install) {
    throw new CliError(
      `no install token found (${address.dataDir}, CONTACTOR_TOKEN): contactor mcp derives the token of external agent "${names[0]}" from it; run it as the user who runs the bridge`,
      EXIT.unauthorized,
    );
  }
  const external = (name: string): BridgeRpc =>
    createHttpRpc({ ...address, token: deriveExternalAgentToken(install, name) }, `external agent "${name}"`);
  if (stored === undefined) {
    // No install token here to compare with (a bridge named by CONTACTOR_URL): the bridge tells. It accepts a
    // token derived from CONTACTOR_TOKEN only when that is the install token; the probe's name is one no
    // configured agent has, so a refusal can only mean that CONTACTOR_TOKEN is an agent's own.
    const probe = external(`mcp-probe-${randomBytes(8).toString('hex')}`);
    if (await provesNothing(probe)) return asInherited();
  }
  if (opts.as !== undefined) return external(opts.as);
  // The bridge refuses an external token named after an agent it runs (transport/caller-tokens.ts): a client
  // that calls itself by one (OpenCode's `opencode`) takes the next of its names (front-doors/mcp/mcp-identity.ts).
  for (const name of names) {
    const rpc = external(name);
    if (!(await provesNothing(rpc))) return rpc;
  }
  throw new CliError(
    `the bridge refused every name this MCP client could act as (${names.join(', ')}): it runs agents of those names, or the install token in ${address.dataDir} is not its own; name the client with \`contactor mcp --as <another-name>\``,
    EXIT.unauthorized,
  );
}

/** Whether the bridge refuses this caller's token (-32066 from http-rpc.ts), asked with a method any caller may call. */
async function provesNothing(rpc: BridgeRpc): Promise<boolean> {
  try {
    await rpc.call('agents/list', {});
    return false;
  } catch (err) {
    if (err instanceof BridgeRpcError && err.code === -32066) return true;
    throw err;
  }
}
