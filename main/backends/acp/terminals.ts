/**
 * The terminals one ACP session asked for (ACP `terminal/*`). Each is a real process spawned with
 * `shell: false` and an explicit environment, whose combined stdout+stderr is kept up to the agent's
 * byte limit (oldest output dropped first, as the spec asks). `releaseAll` runs when the turn ends, so
 * no command an agent started outlives the work it belonged to.
 */
import { RequestError, type TerminalExitStatus } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { exited, started, type AgentChild } from '../process/child-process.js';
import { stopChildAndDescendants } from '../process/stop-all.js';
import { spawnPlan, type LaunchPlan } from './launch.js';

/** Output kept when the agent sets no `outputByteLimit`. */
const DEFAULT_TERMINAL_OUTPUT_BYTES = 1024 * 1024;
const KILL_GRACE_MS = 500;

class Terminal {
  private chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;
  exitStatus: TerminalExitStatus | undefined;
  readonly exit: Promise<TerminalExitStatus>;

  constructor(
    readonly child: AgentChild,
    private readonly limit: number,
  ) {
    child.stdin.end();
    child.stdout.on('data', (c: Buffer) => this.push(c));
    child.stderr.on('data', (c: Buffer) => this.push(c));
    this.exit = exited(child).then(({ code, signal }) => (this.exitStatus = { exitCode: code, signal }));
  }

  output(): string {
    return Buffer.concat(this.chunks)
      .toString('utf8')
      .replace(/^\uFFFD+/, ''); // a cut can split a UTF-8 sequence at the front
  }

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes <= this.limit) return;
    this.truncated = true;
    const all = Buffer.concat(this.chunks);
    this.chunks = [all.subarray(all.length - this.limit)];
    this.bytes = this.limit;
  }
}

export class TerminalSet {
  private readonly terminals = new Map<string, Terminal>();

  async create(plan: LaunchPlan, outputByteLimit: number | undefined): Promise<string> {
    const child = spawnPlan(plan);
    const err = await started(child);
    if (err)
      throw RequestError.internalError({ command: plan.program }, `could not start ${plan.program}: ${err.message}`);
    const id = `term-${randomUUID()}`;
    this.terminals.set(id, new Terminal(child, outputByteLimit ?? DEFAULT_TERMINAL_OUTPUT_BYTES));
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus: TerminalExitStatus | null } {
    const t = this.get(id);
    return { output: t.output(), truncated: t.truncated, exitStatus: t.exitStatus ?? null };
  }

  async waitForExit(id: string): Promise<TerminalExitStatus> {
    return this.get(id).exit;
  }

  async kill(id: string): Promise<void> {
    await stopChildAndDescendants(this.get(id).child, { graceMs: KILL_GRACE_MS });
  }

  async release(id: string): Promise<void> {
    const t = this.get(id);
    this.terminals.delete(id);
    await stopChildAndDescendants(t.child, { graceMs: KILL_GRACE_MS });
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.terminals.keys()].map((id) => this.release(id)));
  }

  private get(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw RequestError.resourceNotFound(id);
    return t;
  }
}
