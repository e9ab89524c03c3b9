/**
 * Connection caps, counted by who holds the connection rather than by address (every 127.x.y.z is this
 * machine, so an address names nobody; SECURITY.md#limits-at-a-glance-configyaml). Headers and bodies must arrive in bounded times (server.ts);
 * here connections are counted:
 *
 * - every connection, bridge-wide: at the cap a new one takes the place of the oldest connection that
 *   has not yet carried an authenticated request ("unproven"); only when none is left is it refused
 *   (HTTP 503, -32065). A real client sends its request at once and proves itself within moments, so
 *   an unauthenticated flood only keeps losing its own connections;
 * - unproven connections share a small budget: past it the OLDEST is dropped, not the new one. One
 *   younger than `unprovenGraceMs` is kept, so a burst of real clients connecting at once is not
 *   mistaken for a flood (the bridge-wide cap still holds, as above);
 * - connections proven by an agent's token: at most `maxPerCaller` per agent, and all agents together
 *   leave `reservedForPerson` (plus the unproven budget) free, so no agent's streams can shut the
 *   person's CLI, `/health` or another agent out. A request over an agent's cap is refused (503,
 *   -32065) and its connection closed.
 *
 * The person's connections (install token) are capped only by the bridge-wide cap; the desktop app calls
 * the bridge in-process and holds none.
 */
import type { Socket } from 'node:net';
import type { Identity } from '../domain/authority.js';

export interface ConnectionLimits {
  maxConnections: number;
  /** Connections one agent's token may hold at once (streams included: each holds its connection). */
  maxPerCaller: number;
  /** Slots agents' connections never take: the person's CLI and curl always get in. */
  reservedForPerson: number;
  maxUnproven: number;
  unprovenGraceMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1024,
  maxPerCaller: 256,
  reservedForPerson: 128,
  maxUnproven: 64,
  unprovenGraceMs: 2000,
};

type Refusal = 'too-many-connections' | 'unproven-dropped';

export class ConnectionGuard {
  /** In arrival order, so the first is the oldest; the value is when it arrived. */
  private readonly unproven = new Map<Socket, number>();
  /** Proven connections and the agent holding each (undefined: the person). */
  private readonly holders = new Map<Socket, string | undefined>();
  private readonly perAgent = new Map<string, number>();
  private agents = 0;
  private open = 0;
  /** Dropped by the guard and already taken off `open`; their 'close' comes later. */
  private readonly uncounted = new WeakSet<Socket>();

  constructor(
    private readonly limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
    private readonly onRefused?: (reason: Refusal, remote: string) => void,
  ) {}

  /** Call on every new connection; returns false when it was refused (and is being closed). */
  admit(socket: Socket): boolean {
    const remote = socket.remoteAddress ?? 'unknown';
    if (this.open >= this.limits.maxConnections && !this.dropOldestUnproven(0)) {
      this.onRefused?.('too-many-connections', remote);
      refuse(socket, 'too many connections to the bridge; retry in a moment');
      return false;
    }
    this.open += 1;
    const now = Date.now();
    this.unproven.set(socket, now);
    socket.once('close', () => {
      if (!this.uncounted.has(socket)) this.open -= 1;
      this.unproven.delete(socket);
      this.release(socket);
    });
    while (this.unproven.size > this.limits.maxUnproven && this.dropOldestUnproven(this.limits.unprovenGraceMs)) {
      // each pass dropped one
    }
    return true;
  }

  /**
   * The connection carried a request with a valid token: it counts for whoever the token proves from now
   * on. False when that is an agent already holding its share: refuse the request and close.
   */
  prove(socket: Socket, who: Identity): boolean {
    const agent = who.kind === 'agent' ? who.agent : undefined;
    if (this.holders.has(socket) && this.holders.get(socket) === agent) return true;
    // The request is refused by the caller (and recorded there, with who): nothing to report here.
    if (agent !== undefined && !this.roomFor(agent)) return false;
    this.unproven.delete(socket);
    this.release(socket);
    this.holders.set(socket, agent);
    if (agent !== undefined) {
      this.perAgent.set(agent, (this.perAgent.get(agent) ?? 0) + 1);
      this.agents += 1;
    }
    return true;
  }

  get counts(): { open: number; unproven: number; agents: number } {
    return { open: this.open, unproven: this.unproven.size, agents: this.agents };
  }

  private roomFor(agent: string): boolean {
    const { maxConnections, reservedForPerson, maxUnproven, maxPerCaller } = this.limits;
    const agentsBudget = Math.max(1, maxConnections - reservedForPerson - maxUnproven);
    return (this.perAgent.get(agent) ?? 0) < maxPerCaller && this.agents < agentsBudget;
  }

  private release(socket: Socket): void {
    if (!this.holders.has(socket)) return;
    const agent = this.holders.get(socket);
    this.holders.delete(socket);
    if (agent === undefined) return;
    const left = (this.perAgent.get(agent) ?? 1) - 1;
    if (left > 0) this.perAgent.set(agent, left);
    else this.perAgent.delete(agent);
    this.agents -= 1;
  }

  /** Drops the oldest unproven connection if it is at least `minAgeMs` old; false when there is none. */
  private dropOldestUnproven(minAgeMs: number): boolean {
    const oldest = this.unproven.entries().next().value;
    if (!oldest) return false;
    const [socket, since] = oldest;
    if (Date.now() - since < minAgeMs) return false;
    this.unproven.delete(socket);
    this.uncounted.add(socket);
    this.open -= 1;
    this.onRefused?.('unproven-dropped', socket.remoteAddress ?? 'unknown');
    socket.destroy();
    return true;
  }
}

function refuse(socket: Socket, message: string): void {
  // -32065, as for the rate limit: the same retry applies.
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32065, message, data: { retryAfterMs: 1000 } },
  });
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
