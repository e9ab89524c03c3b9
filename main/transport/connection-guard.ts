/**
 * Connection caps (SECURITY.md#limits-at-a-glance-configyaml): 500 slow-body connections were held 90 s, and
 * unauthenticated connections trickling a byte every 3 s held 14,599 file descriptors. Headers and bodies must arrive
 * in bounded times (server.ts), and connections are counted here:
 *
 * - every connection, bridge-wide and per remote address: past either cap a new one is refused at once
 *   with HTTP 503 and a JSON-RPC error, then closed;
 * - connections that have not yet carried an authenticated request ("unproven": a client still sending
 *   its headers, or one that only asked for a card): past their cap the OLDEST is dropped, not the new
 *   one, so a real client (the CLI sends its whole request at once) always gets in while a trickling
 *   attacker keeps losing its connections. A connection younger than `unprovenGraceMs` is never dropped,
 *   so a burst of real clients connecting at once is not mistaken for one (the bridge-wide cap still
 *   holds). The tray calls the bridge in-process and needs none.
 */
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  maxPerPeer: number;
  maxUnproven: number;
  unprovenGraceMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1024,
  maxPerPeer: 512,
  maxUnproven: 64,
  unprovenGraceMs: 2000,
};

export class ConnectionGuard {
  private readonly perPeer = new Map<string, number>();
  /** In arrival order, so the first is the oldest; the value is when it arrived. */
  private readonly unproven = new Map<Socket, number>();
  private open = 0;

  constructor(
    private readonly limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
    private readonly onRefused?: (reason: 'too-many-connections' | 'unproven-dropped', remote: string) => void,
  ) {}

  /** Call on every new connection; returns false when it was refused (and is being closed). */
  admit(socket: Socket): boolean {
    const peer = socket.remoteAddress ?? 'unknown';
    const fromPeer = this.perPeer.get(peer) ?? 0;
    if (this.open >= this.limits.maxConnections || fromPeer >= this.limits.maxPerPeer) {
      this.onRefused?.('too-many-connections', peer);
      refuse(socket, this.open >= this.limits.maxConnections ? 'the bridge' : 'your address');
      return false;
    }
    this.open += 1;
    this.perPeer.set(peer, fromPeer + 1);
    const now = Date.now();
    this.unproven.set(socket, now);
    socket.once('close', () => {
      this.open -= 1;
      const left = (this.perPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.perPeer.set(peer, left);
      else this.perPeer.delete(peer);
      this.unproven.delete(socket);
    });
    while (this.unproven.size > this.limits.maxUnproven) {
      const [oldest, since] = this.unproven.entries().next().value!;
      if (now - since < this.limits.unprovenGraceMs) break;
      this.unproven.delete(oldest);
      this.onRefused?.('unproven-dropped', oldest.remoteAddress ?? 'unknown');
      oldest.destroy();
    }
    return true;
  }

  /** The connection carried a request with a valid token: it no longer counts as unproven. */
  prove(socket: Socket): void {
    this.unproven.delete(socket);
  }

  get counts(): { open: number; unproven: number } {
    return { open: this.open, unproven: this.unproven.size };
  }
}

function refuse(socket: Socket, whose: string): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32065,
      message: `too many connections from ${whose}; retry in a moment`,
      data: { retryAfterMs: 1000 },
    },
  });
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
