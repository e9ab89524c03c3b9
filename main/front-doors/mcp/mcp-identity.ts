/**
 * Who an MCP client is (SECURITY.md#who-may-do-what, "MCP clients"): always an agent, never the person.
 * A token that proves an agent (a configured agent's, or an external agent's `contactor token --agent`)
 * is that agent. A request the bridge counts as the person (the install token, or `require_token: false`)
 * comes from a tool a model calls: it acts as an external agent named after the client (`clientInfo.name`),
 * which may not be the name of an agent the bridge runs.
 */
import type { Identity } from '../../domain/authority.js';
import { BridgeRpcError } from './bridge-rpc.js';

const NAME_CHARS = /[^A-Za-z0-9_.-]+/g;

/** `Claude Code` → `Claude-Code`; a name with nothing usable → `mcp-client`. */
export function externalNameOf(clientName: string | undefined): string {
  const cleaned = (clientName ?? '')
    .replace(NAME_CHARS, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return cleaned === '' ? 'mcp-client' : cleaned;
}

export function mcpIdentity(proven: Identity, clientName: string | undefined, configured: readonly string[]): Identity {
  if (proven.kind === 'agent') return proven;
  const name = externalNameOf(clientName);
  if (configured.includes(name)) {
    throw new BridgeRpcError(
      -32066,
      `this MCP client calls itself "${name}", the name of an agent the bridge runs; an MCP client acts as its own agent: give it a token of its own (\`contactor token --agent <another-name>\`)`,
    );
  }
  return { kind: 'agent', agent: name };
}
