/**
 * The token check keeps the list of agents that may call with their own token from one request to the next
 * (AgentRegistry.callerNames is asked on every request). An attacker here is an agent a config reload took
 * out: once its definition is closed, its process — or anyone who read its CONTACTOR_TOKEN — must no longer
 * be let in, and an agent a reload added must be at once. Real registry, real token check, as wired in
 * main/wiring/http-server.ts.
 */
import { describe, expect, it } from 'vitest';
import type { AgentBackend } from '../../main/ports.js';
import { AgentRegistry, type AgentSettings } from '../../main/runtime/registry.js';
import { CallerTokens, deriveAgentToken } from '../../main/transport/caller-tokens.js';

const INSTALL = 'install-token-for-the-test';
const backend = {} as AgentBackend; // never called: only the registry's bookkeeping is used
const settings = { maxQueue: 10 } as AgentSettings;
const bearer = (agent: string) => `Bearer ${deriveAgentToken(INSTALL, agent)}`;

describe('agent tokens across config reloads', () => {
  it('refuses a removed agent once its definition is closed, and knows an added one at once', () => {
    const registry = new AgentRegistry();
    const tokens = new CallerTokens(INSTALL, () => registry.callerNames());
    registry.add('alpha', backend, settings);
    expect(tokens.identify(bearer('alpha'))).toEqual({ kind: 'agent', agent: 'alpha' });
    expect(tokens.identify(bearer('beta'))).toBeUndefined();

    const old = registry.remove('alpha')!;
    // Still finishing what it started: its process may still call back.
    expect(tokens.identify(bearer('alpha'))).toEqual({ kind: 'agent', agent: 'alpha' });
    registry.closed(old);
    expect(tokens.identify(bearer('alpha'))).toBeUndefined();

    registry.add('beta', backend, settings);
    expect(tokens.identify(bearer('beta'))).toEqual({ kind: 'agent', agent: 'beta' });
    expect(tokens.identify(`Bearer ${INSTALL}`)).toEqual({ kind: 'install' });
  });

  it('asks for the list on every request: the same array while nothing changed, a new one after a change', () => {
    const registry = new AgentRegistry();
    registry.add('alpha', backend, settings);
    const first = registry.callerNames();
    expect(registry.callerNames()).toBe(first);
    registry.replace('alpha', backend, settings);
    expect(registry.callerNames()).toEqual(['alpha']);
    registry.remove('alpha');
    expect(registry.callerNames()).toEqual(['alpha']); // leaving, not yet closed
    expect(registry.callerNames()).not.toBe(first);
  });
});
