/**
 * A real bridge process (`contactor serve`, tests/integration/recovery-process.ts) carrying one real agent,
 * with what the scenarios need: JSON-RPC as the person (the install token), waiting for a task's state,
 * a v1 stream, kill -9 and a restart on the same data dir.
 */
import { mkdirSync, realpathSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Discovery } from '../../main/schema/discovery.js';
import { writeTestConfig } from '../helpers/bridge.js';
import { spawnBridge, waitForDiscovery, type BridgeProcess } from '../integration/recovery-process.js';
import { CACHE } from './install.js';
import { laneAgent, type LaneAgent, type LaneAgentName } from './lane-agents.js';

/** Real agents start cold in 20-80 s on a loaded 2-core machine; a scenario's waits allow for that. */
export const AGENT_WAIT_MS = 240_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Wire = any;

export class LaneBridge {
  private proc: BridgeProcess | undefined;
  private discovery: Discovery | undefined;

  private constructor(
    readonly agent: LaneAgent,
    readonly root: string,
    readonly workspace: string,
    readonly configPath: string,
    readonly dataDir: string,
  ) {}

  /** `others`: more config.yaml agents beside the lane agent (the callees of the MCP scenarios). */
  static async create(name: LaneAgentName, others: Record<string, Record<string, unknown>> = {}): Promise<LaneBridge> {
    // Not under the temp folder: Codex refuses to create its helper links (codex-linux-sandbox, which its
    // bwrap sandbox runs) under a temp dir, and every sandboxed command then fails.
    const runs = path.join(CACHE, 'runs');
    mkdirSync(runs, { recursive: true });
    const root = realpathSync(mkdtempSync(path.join(runs, `${name}-`)));
    const workspace = path.join(root, 'workspace');
    mkdirSync(workspace);
    const agent = await laneAgent(name, path.join(root, 'home'), workspace);
    const { configPath, dataDir } = writeTestConfig(root, { agents: { [name]: agent.entry, ...others } });
    const bridge = new LaneBridge(agent, root, workspace, configPath, dataDir);
    await bridge.start();
    return bridge;
  }

  get name(): LaneAgentName {
    return this.agent.name;
  }

  get url(): string {
    return this.discovery!.url;
  }

  get pid(): number {
    return this.proc!.child.pid!;
  }

  async start(): Promise<void> {
    this.proc = spawnBridge(this.configPath);
    this.discovery = await waitForDiscovery(this.dataDir, this.proc, 60_000);
  }

  /** kill -9: no orderly stop, the agent's process is left to the next start's recovery. */
  async kill9(): Promise<void> {
    this.proc!.child.kill('SIGKILL');
    await this.proc!.exited;
  }

  async stop(): Promise<void> {
    if (!this.proc || this.proc.child.exitCode !== null || this.proc.child.signalCode !== null) return;
    this.proc.child.kill('SIGTERM');
    await this.proc.exited;
  }

  async cleanup(): Promise<void> {
    await this.stop();
    await this.agent.mock.close();
    rmSync(this.root, { recursive: true, force: true, maxRetries: 5 });
  }

  stderr(): string {
    return this.proc?.stderr() ?? '';
  }

  async rpc(method: string, params: unknown, at = `/agents/${this.name}`, version = '0.3'): Promise<Wire> {
    // A kept-alive connection the bridge closed as it was reused fails once ("other side closed"); every
    // call here is safe to repeat (a send repeats its messageId, which the bridge answers idempotently).
    const res = await this.post(method, params, at, version).catch(() => this.post(method, params, at, version));
    const body = (await res.json()) as Wire;
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  private post(method: string, params: unknown, at: string, version: string): Promise<Response> {
    return fetch(`${this.url}${at}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.discovery!.token ?? ''}`,
        ...(version === '1.0' ? { 'A2A-Version': '1.0' } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  }

  /** Sends text (v0.3, not blocking); returns the task as accepted. */
  send(text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Wire> {
    return this.rpc('message/send', {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...ids,
      },
      configuration: { blocking: false },
    });
  }

  get(taskId: string): Promise<Wire> {
    return this.rpc('tasks/get', { id: taskId }, '/');
  }

  answer(taskId: string, answer: string): Promise<Wire> {
    return this.rpc('tasks/answer', { taskId, answer }, '/');
  }

  cancel(taskId: string): Promise<Wire> {
    return this.rpc('tasks/cancel', { id: taskId }, '/');
  }

  async waitFor(taskId: string, states: string[], ms = AGENT_WAIT_MS): Promise<Wire> {
    const deadline = Date.now() + ms;
    for (;;) {
      const task = await this.get(taskId);
      if (states.includes(task.status.state)) return task;
      if (Date.now() > deadline) {
        throw new Error(
          `${this.name}: task never reached ${states.join('/')}: ${JSON.stringify(task.status)}\nbridge stderr: ${this.stderr().slice(-2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Waits until `check` holds for the task (a reply growing, a receipt fact arriving). */
  async waitUntil(taskId: string, check: (task: Wire) => boolean, what: string, ms = AGENT_WAIT_MS): Promise<Wire> {
    const deadline = Date.now() + ms;
    for (;;) {
      const task = await this.get(taskId);
      if (check(task)) return task;
      if (Date.now() > deadline)
        throw new Error(`${this.name}: ${what} never happened: ${JSON.stringify(task.status)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export function replyText(task: Wire): string {
  return (task.artifacts ?? [])
    .flatMap((a: Wire) => a.parts)
    .map((p: Wire) => p.text ?? '')
    .join('');
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
