/**
 * The files the bridge itself wrote for agents (ACP fs/write_text_file), by identity and modification time.
 * With it the bridge can tell whether a file's current content is an agent's: same device + file number and
 * the same mtime as right after the agent's write means nobody has saved it since. The config reload asks
 * this about config.yaml, so an agent's write never widens what agents may do (config-reload.ts).
 *
 * Most writes are remembered in a bounded record (a long session writes many files), but a write to one of
 * the protected files (config.yaml, followed to its target when it is a symlink) is kept apart and never
 * forgotten: otherwise an agent that wrote config.yaml and then 4,096 other files had its widening edit
 * applied by the next reload.
 */
import { statSync, type BigIntStats } from 'node:fs';

/** Other writes remembered; the oldest is forgotten first. */
const MAX_REMEMBERED = 4096;

interface Write {
  agent: string;
  mtimeNs: bigint;
}

export class AgentWrites {
  private readonly byFile = new Map<string, Write>();
  /** Writes to a protected file, never forgotten: one per identity the file had when an agent wrote it. */
  private readonly toProtected = new Map<string, Write>();

  private readonly protectedFiles = new Set<string>();

  /**
   * From now on, an agent's write to `file` (by identity at the time of the write: its symlink target or a hard
   * link count) is never forgotten. Whoever asks `lastWriter` about a file declares it here (config-reload.ts).
   */
  protect(file: string): void {
    this.protectedFiles.add(file);
  }

  /** After an agent's write: the written file's stats (`bigint: true`, taken on the open handle). */
  note(agent: string, stats: BigIntStats): void {
    const key = keyOf(stats);
    const write = { agent, mtimeNs: stats.mtimeNs };
    this.byFile.delete(key);
    if (this.isProtected(stats)) {
      this.toProtected.set(key, write);
      return;
    }
    this.toProtected.delete(key);
    this.byFile.set(key, write);
    if (this.byFile.size > MAX_REMEMBERED) this.byFile.delete(this.byFile.keys().next().value!);
  }

  /** The agent whose write is the file's latest change, if an agent's write is. */
  lastWriter(stats: BigIntStats): string | undefined {
    const key = keyOf(stats);
    const write = this.toProtected.get(key) ?? this.byFile.get(key);
    return write && write.mtimeNs === stats.mtimeNs ? write.agent : undefined;
  }

  /** Whether the written file is one of the protected files now (by identity: a hard link or a symlink counts). */
  private isProtected(stats: BigIntStats): boolean {
    return [...this.protectedFiles].some((file) => {
      try {
        const own = statSync(file, { bigint: true });
        return own.dev === stats.dev && own.ino === stats.ino;
      } catch {
        return false; // not there (yet): nothing of it to protect
      }
    });
  }
}

function keyOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}`;
}
