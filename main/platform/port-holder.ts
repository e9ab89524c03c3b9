/**
 * Which process listens on a TCP port, so "port 8791 is in use" can name it. On Linux from proc(5): the
 * listening socket's inode in /proc/net/tcp (and tcp6), then the process whose /proc/<pid>/fd holds that
 * socket (readable for our own user's processes only). Elsewhere, or when it cannot be read, the command
 * that names it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface PortHolder {
  pid: number;
  /** Its command line, as /proc/<pid>/cmdline spells it (NULs as spaces). */
  command: string;
}

/** st = 0A in /proc/net/tcp: TCP_LISTEN. */
const LISTEN = '0A';

/** The processes listening on `port` (any local address, IPv4 or IPv6), as far as this user may see them. */
export function portHolders(port: number): PortHolder[] {
  if (process.platform !== 'linux') return [];
  const inodes = new Set(listeningInodes(port));
  if (inodes.size === 0) return [];
  const holders: PortHolder[] = [];
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = safeReaddir(`/proc/${entry}/fd`);
    if (fds.some((fd) => inodes.has(socketInode(`/proc/${entry}/fd/${fd}`) ?? ''))) {
      holders.push({ pid: Number(entry), command: commandLine(Number(entry)) });
    }
  }
  return holders;
}

/** One phrase for an error message (no `;`: callers split messages there): who holds `port`, or how to find out. */
export function describePortHolder(port: number, platform: NodeJS.Platform = process.platform): string {
  const holders = platform === process.platform ? portHolders(port) : [];
  if (holders.length > 0)
    return `held by ${holders.map((h) => `pid ${h.pid}: ${h.command.slice(0, 200) || '(command line unreadable)'}`).join(' and ')}`;
  if (platform === 'win32') return `\`netstat -ano | findstr :${port}\` shows the pid that holds it`;
  if (platform === 'darwin') return `\`lsof -nP -iTCP:${port} -sTCP:LISTEN\` shows the program that holds it`;
  return `\`ss -ltnp 'sport = :${port}'\` shows the program that holds it (as root when it is another user's)`;
}

function listeningInodes(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode"
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hexPort}`) && f[3] === LISTEN && f[9] && f[9] !== '0') inodes.push(f[9]);
    }
  }
  return inodes;
}

function socketInode(fd: string): string | undefined {
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(fd))?.[1];
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
