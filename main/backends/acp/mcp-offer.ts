/**
 * The MCP servers the bridge offers an ACP agent in `session/new` and `session/load` (`mcpServers`): its own
 * `contactor mcp`, so every agent it runs can delegate by tool call with nothing to configure
 * (docs/backends.md#contactor-mcp-in-every-session). The server is the agent's own: its env carries the
 * agent's derived token, from which the bridge knows who calls (SECURITY.md#the-token).
 *
 * Offered over stdio, the one transport ACP requires every agent to accept (agentCapabilities.mcpCapabilities
 * only adds http and sse), so no capability gates it: an agent that advertises nothing still gets it, and
 * no agent is offered a transport it did not advertise. The bridge's HTTP `/mcp` is not offered: a WSL2
 * agent cannot reach the Windows loopback, and one entry per agent keeps a single `contactor` in its tools.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { contactorCli, contactorCliFromWsl, type CliInstall } from '../process/contactor-cli.js';
import type { AgentPlatform } from './launch.js';

/** The name the server has among the agent's MCP servers (its tools show as contactor's). */
export const MCP_SERVER_NAME = 'contactor';

/** What the server needs to reach the bridge as this agent; the values come from the agent's own env. */
const PASSED_VARS = ['CONTACTOR_URL', 'CONTACTOR_TOKEN', 'CONTACTOR_AGENT'] as const;

export interface McpOffer {
  /** The agent's `offer_mcp` (default on). */
  enabled: boolean;
  platform: AgentPlatform;
  distro: string | undefined;
  /** How this install runs its CLI; undefined: no offer (e.g. tests that run no bridge). */
  install: CliInstall | undefined;
  /** The agent's environment, with CONTACTOR_URL / CONTACTOR_TOKEN / CONTACTOR_AGENT set by the wiring. */
  env: Record<string, string>;
}

/** `[]` when the agent opted out, or when there is no bridge to reach or no CLI to run. */
export function offeredMcpServers(offer: McpOffer): McpServer[] {
  if (!offer.enabled || offer.install === undefined || !offer.env.CONTACTOR_URL) return [];
  // A Windows agent of a bridge that is not on Windows would be handed a program it cannot run.
  if (offer.platform === 'windows' && offer.install.hostPlatform !== 'win32') return [];
  const passed = PASSED_VARS.filter((name) => offer.env[name] !== undefined);
  const cli =
    offer.platform === 'wsl' ? contactorCliFromWsl(offer.install, offer.distro, passed) : contactorCli(offer.install);
  if (!cli) return [];
  const env = { ...cli.env, ...Object.fromEntries(passed.map((name) => [name, offer.env[name]!])) };
  return [
    {
      name: MCP_SERVER_NAME,
      command: cli.program,
      args: [...cli.args, 'mcp'],
      env: Object.entries(env).map(([name, value]) => ({ name, value })),
    },
  ];
}
