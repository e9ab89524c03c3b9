/**
 * No test may reach the default address, 127.0.0.1:8791 (the `port` default in main/schema/config.ts): that is
 * where the user's own bridge listens. For the whole run the global setup listens there itself and notes every
 * connection that comes from this run; its teardown fails the run when there was one. When the port is taken
 * already (the user's bridge, another test run), the guard is skipped with a note: the tests still must not
 * reach it, but cannot be caught.
 *
 * "From this run": on Linux the connecting process is found by its socket (proc(5): /proc/net/tcp, then the
 * socket inode among /proc/<pid>/fd) and counts when it descends from this vitest process or runs from this
 * checkout (a detached bridge is re-parented to init). Another checkout's tests on the same machine do not
 * fail this run. Elsewhere every connection counts.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

const HOST = '127.0.0.1';
const DEFAULT_PORT = 8791;

export async function guardDefaultPort(): Promise<() => Promise<void>> {
  const reached: string[] = [];
  const server = createServer((socket) => {
    const pid = process.platform === 'linux' ? ownerOfLocalPort(socket.remotePort ?? 0) : undefined;
    const ours = pid === undefined || fromThisRun(pid);
    if (ours)
      reached.push(`${new Date().toISOString()} by ${pid === undefined ? 'an unknown process' : describe(pid)}`);
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

/** The pid holding the IPv4 TCP socket whose local port is `port` (the client side of a connection to us). */
function ownerOfLocalPort(port: number): number | undefined {
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode"
    const row = readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .find((f) => f[1]?.endsWith(`:${hexPort}`) && f[2] === `0100007F:${DEFAULT_PORT.toString(16).toUpperCase()}`);
    const inode = row?.[9];
    if (!inode) return undefined;
    const link = `socket:[${inode}]`;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readdirSync(`/proc/${entry}/fd`).some((fd) => readlinkOr(`/proc/${entry}/fd/${fd}`) === link))
          return Number(entry);
      } catch {
        // gone, or not ours to read
      }
    }
  } catch {
    // no /proc
  }
  return undefined;
}

function readlinkOr(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

function fromThisRun(pid: number): boolean {
  if (cmdline(pid).includes(process.cwd())) return true;
  for (let p: number | undefined = pid; p !== undefined && p > 1; p = parentOf(p)) if (p === process.pid) return true;
  return false;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function describe(pid: number): string {
  return `pid ${pid} (${cmdline(pid).trim().slice(0, 200)})`;
}
