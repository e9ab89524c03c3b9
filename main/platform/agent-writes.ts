/**
 * The files the bridge itself wrote for agents (ACP fs/write_text_file), by identity and modification time.
 * With it the bridge can tell whether a file's current content is an agent's: same device + file number and
 * the same mtime as right after the agent's write means nobody has saved it since. The config reload asks
 * this about config.yaml, so an agent's write never widens what agents may do (config-reload.ts).
 */
import type { BigIntStats } from 'node:fs';

/** Writes remembered; the oldest is forgotten first (a long session writes many files). */
const MAX_REMEMBERED = 4096;

export class AgentWrites {
  private readonly byFile = new Map<string, { agent: string; mtimeNs: bigint }>();

  /** After an agent's write: the written file's stats (`bigint: true`, taken on the open handle). */
  note(agent: string, stats: BigIntStats): void {
    const key = keyOf(stats);
    this.byFile.delete(key);
    this.byFile.set(key, { agent, mtimeNs: stats.mtimeNs });
    if (this.byFile.size > MAX_REMEMBERED) this.byFile.delete(this.byFile.keys().next().value!);
  }

  /** The agent whose write is the file's latest change, if an agent's write is. */
  lastWriter(stats: BigIntStats): string | undefined {
    const write = this.byFile.get(keyOf(stats));
    return write && write.mtimeNs === stats.mtimeNs ? write.agent : undefined;
  }
}

function keyOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}`;
}
