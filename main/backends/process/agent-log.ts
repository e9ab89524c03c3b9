/**
 * An agent's stderr, kept in a size-capped, rotated file of its own under the data dir
 * (config/data-dir.ts `agentLogFile`, then `.1`, `.2`): what an agent warns about (a PATH it could not update, a
 * model it does not know) is otherwise seen by no one. Each line is redacted before it is written (a
 * secret split across two lines is not recognised); the files are the user's only. `contactor logs`
 * reads them, and `doctor` shows an agent's last warnings when its probe fails.
 *
 * The agent can reach the data dir with its own tools, so it could leave a link where its log goes
 * (`logs/agents/<agent>.log` → `~/.bashrc`) and have the bridge append its stderr there. Every write opens the
 * file through platform/protected-files.ts `openOwnFileForAppend`: never through a symlink, a hard link or a
 * folder leading out of the data dir; a refused write is dropped, as one to a full disk is.
 */
import { closeSync, lstatSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { rotateGenerations } from '../../platform/log-rotation.js';
import { openOwnFileForAppend } from '../../platform/protected-files.js';

export const AGENT_LOG_MAX_BYTES = 1024 * 1024;
/** Rotated files kept besides the current one. */
export const AGENT_LOG_KEEP = 2;

/** An agent process starting or ending, as the foreground `serve` reports it (README.md#cli). */
export type AgentProcessEvent =
  | { kind: 'started'; pid: number | undefined }
  | { kind: 'exited'; pid: number | undefined; code: number | null; signal: string | null };

export interface AgentLogOptions {
  /** The log file (config/data-dir.ts `agentLogFile`). */
  file: string;
  /** The data dir the file lies in: the log is never written outside it. */
  dataDir: string;
  redact: (line: string) => string;
  maxBytes?: number;
  /** Rotated files kept besides the current one. */
  keep?: number;
  /** Told when a process of this agent starts and ends; a listener that throws is ignored. */
  onProcess?: (event: AgentProcessEvent) => void;
}

export class AgentLog {
  readonly file: string;
  private size: number;
  private readonly maxBytes: number;
  private readonly keep: number;

  constructor(private readonly options: AgentLogOptions) {
    this.file = options.file;
    this.maxBytes = options.maxBytes ?? AGENT_LOG_MAX_BYTES;
    this.keep = options.keep ?? AGENT_LOG_KEEP;
    let size = 0;
    try {
      size = lstatSync(this.file).size;
    } catch {
      // no log yet
    }
    this.size = size;
  }

  /** Copies a process's stderr into the log, line by line, each line stamped with the time and pid. */
  attach(stream: Readable, pid: number | undefined): void {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
      partial = lines.pop() ?? '';
      // A line with no end for too long is written as it is (a progress bar, a stuck agent).
      if (partial.length > 4096) {
        lines.push(partial);
        partial = '';
      }
      this.write(lines, pid);
    });
    stream.on('end', () => {
      if (partial) this.write([partial], pid);
    });
    stream.on('error', () => undefined);
  }

  /**
   * A process of this agent started or ended: a line in its log (so `contactor logs` shows where one run of
   * the agent ends and the next begins) and the listener's event.
   */
  process(event: AgentProcessEvent): void {
    const line =
      event.kind === 'started'
        ? '-- contactor: agent process started'
        : `-- contactor: agent process exited (${event.signal ? `signal ${event.signal}` : `code ${String(event.code)}`})`;
    this.write([line], event.pid);
    try {
      this.options.onProcess?.(event);
    } catch {
      // A listener's bug must not stop the agent.
    }
  }

  private write(lines: string[], pid: number | undefined): void {
    if (lines.length === 0) return;
    const at = new Date().toISOString();
    const text = lines.map((line) => `${at} [${pid ?? '?'}] ${this.options.redact(line)}\n`).join('');
    try {
      const fd = openOwnFileForAppend(this.options.dataDir, this.file);
      try {
        writeFileSync(fd, text);
      } finally {
        closeSync(fd);
      }
    } catch {
      return; // a full disk, a removed data dir or a planted link must not stop the agent
    }
    this.size += Buffer.byteLength(text);
    if (this.size > this.maxBytes) this.rotate();
  }

  private rotate(): void {
    try {
      rotateGenerations(this.file, this.keep);
      this.size = 0;
    } catch {
      // left as it is: the next write tries again
    }
  }
}
