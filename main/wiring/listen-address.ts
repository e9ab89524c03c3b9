/** Where the bridge listens: the token policy for its host, the port (0 = any free one) and its URL. */
import { createServer } from 'node:net';

/** A bridge reachable from other machines must require the token. */
export function requireTokenPolicy(requireToken: boolean, host: string): boolean {
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (!requireToken && !loopback) {
    throw new Error(`refusing to listen on ${host} without a token: set require_token: true, or bind 127.0.0.1`);
  }
  return requireToken;
}

/** The port to listen on: the requested one, or a free one when 0 was asked for (tests). */
export async function listenPort(requested: number, host: string): Promise<number> {
  return requested === 0 ? await freePort(host) : requested;
}

export function bridgeUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
