/**
 * The bridge's files in its data dir: the instance lock, the per-install token and the discovery file.
 * All are user-only (0600 / 0700) because the token lets any holder make agents run commands.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import path from 'node:path';
import { readOwnFile } from '../platform/protected-files.js';
import type { Discovery } from '../schema/discovery.js';

export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Refuses a second bridge on the same data dir: two writers would race on the discovery file and the
 * port even though SQLite itself would survive. A lock left by a dead process is taken over.
 */
export function acquireInstanceLock(dir: string): () => void {
  const file = path.join(dir, 'bridge.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        if (readPid(file) === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readPid(file);
      // Created a moment ago by a bridge starting at the same time, its pid not written yet: that one holds it.
      if (owner === undefined && justCreated(file)) {
        throw new Error(
          `another contactor bridge is starting on ${dir}; stop it with \`contactor down\` or give this one another data_dir`,
          { cause: err },
        );
      }
      // Our own pid counts too: two bridges in one process would share the data dir just as badly.
      if (owner !== undefined && isProcessAlive(owner)) {
        throw new Error(
          `another contactor bridge (pid ${owner}) is already using ${dir}; stop it with \`contactor down\` or give this one another data_dir`,
          { cause: err },
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the lock ${file}; remove it if no bridge is running`);
}

/**
 * Who holds this data dir's instance lock: the live bridge process starting or running there, `starting`
 * while a lock made a moment ago has no pid in it yet, or undefined (no lock, or its holder is gone).
 */
export function instanceLockHolder(dir: string): number | 'starting' | undefined {
  const file = path.join(dir, 'bridge.lock');
  const owner = readPid(file);
  if (owner === undefined) return justCreated(file) ? 'starting' : undefined;
  return isProcessAlive(owner) ? owner : undefined;
}

/** Between `open` and `write` of the lock another process can read it empty; after this long it is a leftover. */
const LOCK_WRITE_GRACE_MS = 2_000;

function justCreated(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < LOCK_WRITE_GRACE_MS;
  } catch {
    return false;
  }
}

/** The per-install bearer token: created on first run, kept in the data dir. */
export function loadOrCreateToken(dir: string): string {
  const file = path.join(dir, 'token');
  if (existsSync(file)) {
    // Not a plain file (a FIFO an agent put there): a new token replaces it.
    const token = readOwnFile(file)?.trim() ?? '';
    if (token.length >= 32) return token;
  }
  return rotateToken(dir);
}

export function rotateToken(dir: string): string {
  const token = randomBytes(32).toString('base64url');
  writeAtomic(path.join(dir, 'token'), `${token}\n`);
  return token;
}

export function writeDiscovery(dir: string, discovery: Discovery): void {
  writeAtomic(path.join(dir, 'bridge.json'), `${JSON.stringify(discovery, null, 2)}\n`);
}

export function removeDiscovery(dir: string, pid: number): void {
  const file = path.join(dir, 'bridge.json');
  try {
    const current = JSON.parse(readOwnFile(file) ?? '{}') as { pid?: number };
    if (current.pid === pid) rmSync(file, { force: true });
  } catch {
    // Already gone or unreadable: nothing of ours to remove.
  }
}

function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readOwnFile(file)?.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a process is running: the one liveness check of the bridge (its instance lock) and the CLI
 * (`up`, `down`, `status`, `doctor`). EPERM means it runs, as another user. A zombie is dead: after a
 * kill -9 the bridge stays a zombie until its parent reaps it, and must not block a restart. Linux reads the state from
 * /proc; elsewhere a zombie cannot be told apart and counts as alive.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/<pid>/stat: "pid (comm) S ..." — comm may hold spaces and parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Where the bridge keeps an agent's stderr (backends/process/agent-log.ts; `contactor logs`): one file per
 * agent name, anything but [\w.-] in it becoming `_`.
 */
export function agentLogFile(dataDir: string, agent: string): string {
  return path.join(dataDir, 'logs', 'agents', `${agent.replace(/[^\w.-]/g, '_')}.log`);
}
