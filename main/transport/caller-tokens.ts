/**
 * Who is calling, from the bearer token alone (SECURITY.md#the-token). The user's CLI and any client they
 * configure use the per-install token; every agent the bridge starts gets its own token, derived from
 * the install token and its name, so a request made from inside an agent names that agent whatever its
 * parameters say. Loop guards and rate-limit buckets use this identity, never a request parameter.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { PERSON_BY_TOKEN, type Identity } from '../domain/authority.js';
import { AGENT_NAME } from '../schema/config.js';

/** `external`: an agent outside the bridge (an MCP client such as Claude Code), proven by its own token. */
export type Caller = { kind: 'install' } | { kind: 'agent'; agent: string; external?: true };

/** How an external agent's token begins: `ext.<name>.<mac>` (SECURITY.md#the-token). */
const EXTERNAL_PREFIX = 'ext.';

/** The token an agent gets in CONTACTOR_TOKEN: HMAC-SHA256(install token, "contactor-agent:" + name). */
export function deriveAgentToken(installToken: string, agent: string): string {
  return createHmac('sha256', installToken).update(`contactor-agent:${agent}`).digest('base64url');
}

/**
 * The token of an agent the bridge does not run (`contactor token --agent NAME`, `contactor mcp`):
 * `ext.<name>.` + HMAC-SHA256(install token, "contactor-external-agent:" + name). The name travels in the
 * token so any name can be proven without a list; the MAC, under another label than a configured agent's,
 * means only a holder of the install token can make one.
 */
export function deriveExternalAgentToken(installToken: string, agent: string): string {
  if (!AGENT_NAME.test(agent)) throw new Error(`"${agent}" is not an agent name (letters, digits, _ . -)`);
  return `${EXTERNAL_PREFIX}${agent}.${externalMac(installToken, agent)}`;
}

function externalMac(installToken: string, agent: string): string {
  return createHmac('sha256', installToken).update(`contactor-external-agent:${agent}`).digest('base64url');
}

/** The install token plus one derived token per configured agent (the list follows config reloads). */
export class CallerTokens {
  private known:
    { agents: readonly string[]; names: string; entries: { digest: Buffer; caller: Caller }[] } | undefined;

  constructor(
    private readonly installToken: string,
    /** The same array while the list is unchanged (AgentRegistry.callerNames) spares a comparison per request. */
    private readonly agents: () => readonly string[],
    /**
     * Told each time an external agent's token proves its name: the bridge remembers it among the secrets it
     * removes from tasks, logs and the audit log (SECURITY.md#the-token), as it does its own tokens.
     */
    private readonly onExternalProven?: (token: string) => void,
  ) {}

  private entries(): { digest: Buffer; caller: Caller }[] {
    const agents = this.agents();
    if (this.known?.agents === agents) return this.known.entries;
    const names = agents.join('\n');
    if (this.known?.names === names) this.known.agents = agents;
    else {
      this.known = {
        agents,
        names,
        entries: [
          { digest: digest(this.installToken), caller: { kind: 'install' } },
          ...agents.map((agent) => ({
            digest: digest(deriveAgentToken(this.installToken, agent)),
            caller: { kind: 'agent', agent } as Caller,
          })),
        ],
      };
    }
    return this.known.entries;
  }

  /**
   * The caller an `Authorization: Bearer ...` header proves, or undefined. Every known token is compared
   * in constant time (both sides hashed first, so lengths never differ), and all of them always are.
   */
  identify(header: string | undefined): Caller | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) return undefined;
    const given = digest(match[1]!);
    let found: Caller | undefined;
    const entries = this.entries();
    for (const entry of entries) if (timingSafeEqual(given, entry.digest)) found ??= entry.caller;
    return found ?? this.external(match[1]!, given);
  }

  /**
   * The external agent an `ext.<name>.<mac>` token proves. A name that is a configured agent's is refused:
   * only that agent's own derived token speaks for it, so no external token poses as an agent the bridge runs
   * (nor as the person, which no agent token is).
   */
  private external(token: string, given: Buffer): Caller | undefined {
    if (!token.startsWith(EXTERNAL_PREFIX)) return undefined;
    const cut = token.lastIndexOf('.');
    const agent = token.slice(EXTERNAL_PREFIX.length, cut);
    if (cut <= EXTERNAL_PREFIX.length || !AGENT_NAME.test(agent)) return undefined;
    const expected = digest(`${EXTERNAL_PREFIX}${agent}.${externalMac(this.installToken, agent)}`);
    if (!timingSafeEqual(given, expected)) return undefined;
    if (this.agents().includes(agent)) return undefined;
    this.onExternalProven?.(token);
    return { kind: 'agent', agent, external: true };
  }
}

/** One-shot `hash`: a third of `createHash(...).update().digest()`'s cost, paid on every request. */
function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/**
 * The identity a request proves (domain/authority.ts): the install token is the person, an agent's
 * derived token that agent. With `require_token: false` there is no credential to tell callers apart,
 * so every caller counts as the person (SECURITY.md says so).
 */
export function identityOf(caller: Caller | undefined): Identity {
  if (caller === undefined) return { kind: 'person', via: 'no token required' };
  return caller.kind === 'agent' ? { kind: 'agent', agent: caller.agent } : PERSON_BY_TOKEN;
}

/** The rate-limit bucket of a caller: its token's identity, else (no token required) its address. */
export function bucketOf(caller: Caller | undefined, remoteAddress: string): string {
  if (!caller) return `address:${remoteAddress}`;
  return caller.kind === 'agent' ? `agent:${caller.agent}` : 'install';
}
