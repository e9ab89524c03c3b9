/** A raw TCP connection to the bridge, for the connection-cap attacks: it records what the bridge answered and when it closed it. */
import { connect, type Socket } from 'node:net';

export interface Conn {
  socket: Socket;
  closed: () => boolean;
  received: () => string;
}

/** Opens one; its socket joins `sockets`, which the test destroys after each case. */
export function openRaw(url: URL, sockets: Socket[]): Promise<Conn> {
  return new Promise((resolve, reject) => {
    let closed = false;
    let received = '';
    const socket = connect(Number(url.port), url.hostname, () =>
      resolve({ socket, closed: () => closed, received: () => received }),
    );
    sockets.push(socket);
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}
