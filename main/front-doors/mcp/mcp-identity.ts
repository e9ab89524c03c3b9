/**
 * Who an MCP client is (SECURITY.md#who-may-do-what, "MCP clients"): always an agent, never the person.
 * A token that proves an agent (a configured agent's, or an external agent's `contactor token --agent`)
 * is that agent. A request the bridge counts as the person (the install token, or `require_token: false`)
 * comes from a tool a model calls: it acts as an external agent named after the client (`clientInfo.name`),
 * which is never the name of an agent the bridge runs.
 */
import type { Identity } from '../../domain/authority.js';
import { BridgeRpcError } from './bridge-rpc.js';

const NAME_CHARS = /[^A-Za-z0-9_.-]+/g;
const MAX_NAME = 64;
/** How many client-named candidates are tried before a clash is reported (two already need a contrived config). */
const CANDIDATES = 5;

/** `Claude Code` → `Claude-Code`; a name with nothing usable → `mcp-client`. */
function cleanName(clientName: string | undefined): string {
  const cleaned = (clientName ?? '')
    .replace(NAME_CHARS, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX_NAME);
  return cleaned === '' ? 'mcp-client' : cleaned;
}

/**
 * The names a client may act as, in order: its own (`Claude Code` → `Claude-Code`), then `<name>-client`,
 * `<name>-client-2`, ... for a client that calls itself by an agent the bridge runs (OpenCode's MCP client
 * is `opencode`, beside the `opencode` agent): it gets a name of its own instead of a refusal, so the
 * one-line registration works as written.
 */
export function externalNameCandidates(clientName: string | undefined): string[] {
  const name = cleanName(clientName);
  const suffixed = (suffix: string): string => `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  return [name, suffixed('-client'), ...Array.from({ length: CANDIDATES - 2 }, (_, i) => suffixed(`-client-${i + 2}`))];
}

/** The first of the client's names that no configured agent has, or undefined when all of them are taken. */
export function externalNameOf(clientName: string | undefined, configured: readonly string[]): string | undefined {
  return externalNameCandidates(clientName).find((name) => !configured.includes(name));
}

/**
 * The identity a `/mcp` session acts as: a proven agent as it is; else the external agent `named` (chosen once
 * per session, so its tasks stay its own), refused while that name is a configured agent's (one added by a
 * reload after the session chose it).
 */
export function mcpIdentity(proven: Identity, named: string | undefined, configured: readonly string[]): Identity {
  if (proven.kind === 'agent') return proven;
  if (named === undefined || configured.includes(named)) {
    throw new BridgeRpcError(
      -32066,
      `${named === undefined ? "every name this MCP client could act as is an agent's the bridge runs" : `this MCP client acts as "${named}", now the name of an agent the bridge runs`}; an MCP client acts as its own agent: give it a token of its own (\`contactor token --agent <another-name>\`)`,
    );
  }
  return { kind: 'agent', agent: named };
}
