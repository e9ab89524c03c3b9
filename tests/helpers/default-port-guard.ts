/**
 * No test may reach the default address, 127.0.0.1:8791 (the `port` default in main/schema/config.ts): that is
 * where the user's own bridge listens. For the whole run the global setup listens there itself and notes every
 * connection; its teardown fails the run when there was one. When the port is taken already (the user's bridge,
 * another test run), the guard is skipped with a note: the tests still must not reach it, but cannot be caught.
 */
import { createServer, type Server } from 'node:net';

const HOST = '127.0.0.1';
const DEFAULT_PORT = 8791;

export async function guardDefaultPort(): Promise<() => Promise<void>> {
  const reached: string[] = [];
  const server = createServer((socket) => {
    reached.push(`${new Date().toISOString()} from port ${socket.remotePort ?? '?'}`);
    socket.destroy();
  });
  const listening = await listen(server);
  if (!listening) {
    console.warn(`note: ${HOST}:${DEFAULT_PORT} is in use, so this run cannot check that no test reaches it`);
    return async () => undefined;
  }
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (reached.length > 0)
      throw new Error(
        `${reached.length} connection(s) reached the default address ${HOST}:${DEFAULT_PORT} during the tests ` +
          `(a test must use its own config and port): ${reached.join('; ')}`,
      );
  };
}

function listen(server: Server): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ host: HOST, port: DEFAULT_PORT, exclusive: true }, () => resolve(true));
  });
}
