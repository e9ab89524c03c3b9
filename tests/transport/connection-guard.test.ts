/**
 * The connection guard's bookkeeping (main/transport/connection-guard.ts), cell by cell; the attacks
 * themselves run over real sockets in tests/security/connection-exhaustion.test.ts.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../main/domain/authority.js';
import { ConnectionGuard, type ConnectionLimits } from '../../main/transport/connection-guard.js';

/**
 * What the guard uses of node:net's Socket: `remoteAddress`, `destroy()` (whose 'close' event Node emits
 * on a later tick, lib/net.js `_destroy` → `emitCloseNT`), `end(data, callback)` and the 'close' event.
 */
class FakeSocket extends EventEmitter {
  remoteAddress = '127.0.0.1';
  destroyed = false;
  ended = '';
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    setImmediate(() => this.emit('close'));
    return this;
  }
  end(data: string, callback?: () => void): this {
    this.ended = data;
    callback?.();
    return this;
  }
}

const person: Identity = { kind: 'person', via: 'token' };
const agent = (name: string): Identity => ({ kind: 'agent', agent: name });
const LIMITS: ConnectionLimits = {
  maxConnections: 10,
  maxPerCaller: 3,
  reservedForPerson: 4,
  maxUnproven: 2,
  unprovenGraceMs: 600_000,
};

function connect(guard: ConnectionGuard): FakeSocket {
  const socket = new FakeSocket();
  guard.admit(socket as unknown as Socket);
  return socket;
}
const closed = (s: FakeSocket) => new Promise((resolve) => s.once('close', resolve));

describe('connection guard', () => {
  it('caps each agent at its share and all agents below the room kept for the person', () => {
    const guard = new ConnectionGuard(LIMITS);
    const prove = (who: Identity) => guard.prove(connect(guard) as unknown as Socket, who);
    // a1 gets its 3, a2 only the 1 left of the agents' budget (10 - 4 reserved - 2 unproven = 4).
    expect([prove(agent('a1')), prove(agent('a1')), prove(agent('a1')), prove(agent('a1'))]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect([prove(agent('a2')), prove(agent('a2'))]).toEqual([true, false]);
    // The person is not held to an agent's share.
    expect([prove(person), prove(person)]).toEqual([true, true]);
    expect(guard.counts.agents).toBe(4);
  });

  it('moves a keep-alive connection to whoever proved it last, and forgets it when it closes', async () => {
    const guard = new ConnectionGuard(LIMITS);
    const socket = connect(guard);
    expect(guard.counts).toEqual({ open: 1, unproven: 1, agents: 0 });
    guard.prove(socket as unknown as Socket, person);
    expect(guard.counts).toEqual({ open: 1, unproven: 0, agents: 0 });
    guard.prove(socket as unknown as Socket, agent('a1'));
    expect(guard.counts).toEqual({ open: 1, unproven: 0, agents: 1 });
    socket.destroy();
    await closed(socket);
    expect(guard.counts).toEqual({ open: 0, unproven: 0, agents: 0 });
  });

  it('at the bridge-wide cap, a new connection takes the place of the oldest unproven one', async () => {
    const guard = new ConnectionGuard({ ...LIMITS, maxUnproven: 10 });
    const flood = Array.from({ length: 10 }, () => connect(guard));
    const newcomer = connect(guard);
    expect(newcomer.destroyed).toBe(false);
    expect(flood[0]!.destroyed).toBe(true);
    expect(flood.slice(1).every((s) => !s.destroyed)).toBe(true);
    await closed(flood[0]!);
    expect(guard.counts.open).toBe(10);
  });

  it('refuses a new connection with 503 and -32065 only when every connection is proven', () => {
    const guard = new ConnectionGuard({ ...LIMITS, maxConnections: 2 });
    for (let i = 0; i < 2; i += 1) guard.prove(connect(guard) as unknown as Socket, person);
    const refused = connect(guard);
    expect(refused.ended).toMatch(/^HTTP\/1\.1 503/);
    expect(refused.ended).toContain('"code":-32065');
    expect(guard.counts.open).toBe(2);
  });
});
