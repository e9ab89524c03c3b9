/**
 * The external agent an MCP client acts as when its token proves no agent (front-doors/mcp/mcp-identity.ts):
 * its own name, else a name of its own beside an agent the bridge runs; never a configured agent's.
 */
import { describe, expect, it } from 'vitest';
import { PERSON_BY_TOKEN } from '../../main/domain/authority.js';
import { externalNameCandidates, externalNameOf, mcpIdentity } from '../../main/front-doors/mcp/mcp-identity.js';

const LONG = 'a'.repeat(70);

describe("an MCP client's external name", () => {
  it('is the client name made an agent name, then <name>-client, <name>-client-2, ...', () => {
    expect(externalNameCandidates('Claude Code')).toEqual([
      'Claude-Code',
      'Claude-Code-client',
      'Claude-Code-client-2',
      'Claude-Code-client-3',
      'Claude-Code-client-4',
    ]);
    expect(externalNameCandidates(undefined)[0]).toBe('mcp-client');
    // Each candidate stays within the 64 characters of an agent name.
    expect(externalNameCandidates(LONG).slice(0, 2)).toEqual(['a'.repeat(64), `${'a'.repeat(57)}-client`]);
  });

  it('skips the names of configured agents, and is undefined when every candidate is one', () => {
    expect(externalNameOf('opencode', ['opencode', 'codex'])).toBe('opencode-client');
    expect(externalNameOf('opencode', ['codex'])).toBe('opencode');
    expect(externalNameOf('x', ['x', 'x-client', 'x-client-2', 'x-client-3', 'x-client-4'])).toBeUndefined();
  });

  it('a session whose name a reload gave to an agent is refused from then on, not made that agent', () => {
    expect(mcpIdentity(PERSON_BY_TOKEN, 'helper', ['codex'])).toEqual({ kind: 'agent', agent: 'helper' });
    expect(() => mcpIdentity(PERSON_BY_TOKEN, 'helper', ['codex', 'helper'])).toThrow(
      'this MCP client acts as "helper", now the name of an agent the bridge runs',
    );
    expect(() => mcpIdentity(PERSON_BY_TOKEN, undefined, ['x'])).toThrow(
      "every name this MCP client could act as is an agent's",
    );
    // A token that proves an agent is that agent, whatever the client calls itself.
    expect(mcpIdentity({ kind: 'agent', agent: 'codex' }, 'other', [])).toEqual({ kind: 'agent', agent: 'codex' });
  });
});
