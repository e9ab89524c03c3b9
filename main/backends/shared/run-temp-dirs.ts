/**
 * The temp folders an agent run gets for its attachments and prompt file: user-only (0700, made by
 * mkdtemp with an unpredictable suffix; files in them 0600), in the system temp folder where the agent
 * can read them, and removed when the run ends. A bridge killed mid-run cannot remove its own, so each
 * name carries the bridge's pid — `contactor-attachments-<pid>-XXXXXX` — and the next start removes
 * the ones whose bridge is gone. /tmp is shared: only folders owned by this user, never a symlink, and
 * never one whose pid is alive (another bridge, or a process that reused the pid: left for later).
 */
import { mkdtempSync, readdirSync, lstatSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type RunTempKind = 'attachments' | 'prompt';

const LEFTOVER = /^contactor-(?:attachments|prompt)-(\d+)-[A-Za-z0-9]{6}$/;

function prefix(kind: RunTempKind): string {
  return join(tmpdir(), `contactor-${kind}-${process.pid}-`);
}

export function makeRunTempDir(kind: RunTempKind): Promise<string> {
  return mkdtemp(prefix(kind));
}

export function makeRunTempDirSync(kind: RunTempKind): string {
  return mkdtempSync(prefix(kind));
}

/**
 * Removes the run folders of bridges that are gone (killed, crashed) from `dir`; returns their paths.
 * `isAlive` tells whether a pid runs (EPERM counts as running). Never throws for one folder.
 */
export function removeLeftoverRunDirs(isAlive: (pid: number) => boolean, dir: string = tmpdir()): string[] {
  const uid = process.getuid?.();
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(LEFTOVER.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      // Windows has no uids (getuid is undefined); its temp folder is per user.
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}
