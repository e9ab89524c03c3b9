import type { IncomingMessage } from 'node:http';

/**
 * Reads and discards what is left of a refused request's body, so the 413 reaches the client: a body
 * left unread stalls the client's upload (it waits to finish sending before it reads the answer) until
 * the keep-alive timer resets the connection. Bounded: past `maxBytes` more, the sender is not a client
 * that wants an answer, and its connection is cut.
 */
export function discardBody(req: IncomingMessage, maxBytes: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = (): void => {
      req.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen <= maxBytes) return;
      req.socket.destroy();
      done();
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}
