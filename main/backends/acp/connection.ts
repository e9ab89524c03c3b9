/**
 * One running ACP agent: its process, the JSON-RPC connection over its stdio, and the sessions it
 * hosts. Lifecycle: `open` (spawn → `initialize`, or a StartFailure saying why the agent could not be
 * reached) → any number of sessions and prompts → `stop` (graceful) or `abandon` (the connection can no
 * longer be trusted: a cancel that did not land, a polluted stdout, an oversized message). Sessions die
 * with the process.
 */
import {
  client,
  methods,
  PROTOCOL_VERSION,
  type ClientConnection,
  type ClientContext,
  type InitializeResponse,
  type McpServer,
  type RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import {
  exited,
  started,
  StderrTail,
  whenAborted,
  within,
  type AgentChild,
  type ChildExit,
} from '../process/child-process.js';
import { stderrCause } from '../process/stderr-cause.js';
import { SHUTTING_DOWN_REASON } from '../shared/outcomes.js';
import type { AgentLog } from '../process/agent-log.js';
import { stopChildAndDescendants } from '../process/stop-all.js';
import { processStartOf } from '../process/process-start.js';
import {
  registerClientCapabilities,
  clientCapabilities,
  type CapabilityHost,
  type CapabilityFlags,
} from './client-capabilities.js';
import { describeLaunch, spawnPlan, type LaunchPlan } from './launch.js';
import { AcpSession } from './session.js';
import { agentStdioStream } from './stdio-stream.js';
import { onTextChunks } from './text-chunks.js';
import type { Workspace } from './workspace.js';

/** Non-protocol stdout lines tolerated before the agent is considered broken. */
const MAX_NOISE_LINES = 50;
const STDERR_TAIL_LINES = 20;
/** How long to wait for the exit status after the connection dropped, to name the cause. */
const EXIT_NOTICE_MS = 2000;
/**
 * Sessions one process keeps. An agent holds each session's conversation in memory, and a long-lived
 * process would otherwise keep one per context it ever served; beyond this the least recently used idle
 * session is let go (a later follow-up in its context starts a new session and is told everything again).
 */
export const MAX_SESSIONS = 32;

export interface ConnectionSpec {
  agent: string;
  plan: LaunchPlan;
  flags: CapabilityFlags;
  terminalPlan: CapabilityHost['terminalPlan'];
  maxMessageBytes: number;
  initializeTimeoutMs: number;
  clientVersion: string;
  /** Offered in every `session/new` and `session/load` (mcp-offer.ts). */
  mcpServers: McpServer[];
  /** Aborted when the bridge stops: a start still waiting for `initialize` kills the process and fails. */
  signal?: AbortSignal;
  /** Keeps the agent's stderr (agent-log.ts). */
  stderrLog?: AgentLog;
  /** The npm package of a known agent's program: what a missing program's fix installs. */
  npmPackage?: string;
}

/** The agent could not be reached; `message` is the concrete reason for an `undelivered` outcome. */
export class StartFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'StartFailure';
  }
}

export interface ConnectionFailure {
  reason: string;
  retryable: boolean;
  stderrTail: string;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** The change that makes a program that could not be started start: install it, or name its full path. */
function startFix(spec: ConnectionSpec, err: NodeJS.ErrnoException): string {
  const key = `agents.${spec.agent}.command`;
  if (err.code !== 'ENOENT') return `check ${key} in config.yaml`;
  if (spec.plan.via === 'wsl') return "install WSL (`wsl --install`), or set the agent's platform to native or windows";
  const install = spec.npmPackage
    ? `install it (\`npm install -g ${spec.npmPackage}\`)`
    : `install ${spec.plan.program}`;
  return `${install}, or put its full path in config.yaml (${key})`;
}

function describeExit(exit: ChildExit): string {
  return exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
}

export class AcpConnection {
  /** Least recently used first. */
  readonly sessions = new Map<string, AcpSession>();
  readonly byContext = new Map<string, AcpSession>();
  init: InitializeResponse | undefined;
  private fatal: { reason: string; retryable: boolean } | undefined;
  private noiseLines = 0;
  private exit: ChildExit | undefined;
  private readonly stderr: StderrTail;
  private readonly connection: ClientConnection;
  /** The process's start identity (process-start.ts), recorded with its pid in each task's receipt. */
  readonly pidStart: Promise<string | undefined>;

  private constructor(
    private readonly child: AgentChild,
    private readonly spec: ConnectionSpec,
  ) {
    this.stderr = new StderrTail(child.stderr);
    spec.stderrLog?.attach(child.stderr, child.pid);
    spec.stderrLog?.process({ kind: 'started', pid: child.pid });
    this.pidStart = processStartOf(child.pid);
    void exited(child).then((exit) => {
      this.exit = exit;
      spec.stderrLog?.process({ kind: 'exited', pid: child.pid, ...exit });
    });
    const app = onTextChunks(client({ name: 'contactor' }), ({ sessionId, update }) => {
      this.sessions.get(sessionId)?.turn?.onUpdate(update);
    })
      .onNotification(methods.client.session.update, ({ params }) => {
        this.sessions.get(params.sessionId)?.turn?.onUpdate(params.update);
      })
      .onRequest(methods.client.session.requestPermission, ({ params, signal }) => {
        const turn = this.sessions.get(params.sessionId)?.turn;
        return turn ? turn.askPermission(params, signal) : CANCELLED;
      });
    registerClientCapabilities(app, spec.flags, {
      session: (id) => this.sessions.get(id),
      terminalPlan: spec.terminalPlan,
    });
    const stream = agentStdioStream(child.stdin, child.stdout, spec.maxMessageBytes, {
      onNoise: () => {
        this.noiseLines += 1;
        if (this.noiseLines === MAX_NOISE_LINES) {
          void this.abandon(`agent pollutes stdout (${MAX_NOISE_LINES} non-protocol lines)`, false, 0);
        }
      },
      onTooLarge: (limit) => {
        void this.abandon(`agent sent a message larger than the ${limit}-byte ACP message limit`, false, 0);
      },
    });
    this.connection = app.connect(stream);
  }

  /** Spawns the agent and completes `initialize`; throws a StartFailure with the concrete reason. */
  static async open(spec: ConnectionSpec): Promise<AcpConnection> {
    const what = `agent ${spec.agent} (${describeLaunch(spec.plan)})`;
    let child: AgentChild;
    try {
      child = spawnPlan(spec.plan);
    } catch (err) {
      throw new StartFailure(`could not start ${what}: ${(err as Error).message}`, false);
    }
    const spawnError = (await started(child)) as NodeJS.ErrnoException | undefined;
    if (spawnError) {
      const permanent = ['ENOENT', 'EACCES', 'ENOTDIR', 'EISDIR'].includes(spawnError.code ?? '');
      throw new StartFailure(
        `could not start ${what}: ${spawnError.message}; ${startFix(spec, spawnError)}`,
        !permanent,
      );
    }
    const conn = new AcpConnection(child, spec);
    try {
      conn.init = await conn.initialize();
    } catch (err) {
      if (spec.signal?.aborted) {
        await conn.stop(0);
        throw new StartFailure(SHUTTING_DOWN_REASON, true);
      }
      await conn.failure();
      // Named before the stop: the kill that follows a timeout is not the agent exiting on its own. An
      // agent that exits before it answers `initialize` does so again on a retry (a missing module, a bad
      // flag, no login): not retryable. A slow or stuck start may pass another time.
      const exit = conn.exit;
      const cause = exit
        ? `exited during initialize (${describeExit(exit)})`
        : `failed to initialize: ${(err as Error).message}`;
      await conn.stop(0);
      const line = stderrCause(conn.stderr.text());
      const said = line ? `: ${line}` : '';
      throw new StartFailure(`${what} ${cause}${said}; its stderr: \`contactor logs ${spec.agent}\``, !exit);
    }
    if (conn.init.protocolVersion !== PROTOCOL_VERSION) {
      await conn.stop(0);
      throw new StartFailure(
        `agent ${spec.agent} speaks ACP protocol version ${conn.init.protocolVersion}; contactor speaks version ${PROTOCOL_VERSION}`,
        false,
      );
    }
    return conn;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** How the command became a process: direct, npm shim resolved, cmd.exe, or wsl.exe. */
  get launchedVia(): LaunchPlan['via'] {
    return this.spec.plan.via;
  }

  get agent(): ClientContext {
    return this.connection.agent;
  }

  get alive(): boolean {
    return !this.fatal && !this.exit && !this.connection.signal.aborted;
  }

  /** Where the agent's stderr is now: a turn passes it to `failure` to report its own stderr only. */
  stderrMark(): number {
    return this.stderr.mark();
  }

  /**
   * Why the connection is gone, once it is (waits briefly for the exit status). With `sinceMark`, the
   * stderr is what the agent wrote during that turn, not earlier turns' (`contactor logs` has it all).
   */
  async failure(sinceMark = 0): Promise<ConnectionFailure> {
    if (!this.fatal && !this.exit) await within(exited(this.child), EXIT_NOTICE_MS);
    const stderrTail = this.stderr.since(sinceMark, STDERR_TAIL_LINES);
    if (this.fatal) return { ...this.fatal, stderrTail };
    const reason = this.exit
      ? `agent ${this.spec.agent} process exited (${describeExit(this.exit)})`
      : `agent ${this.spec.agent} closed its connection`;
    return { reason, retryable: true, stderrTail };
  }

  async newSession(contextId: string, workspace: Workspace): Promise<AcpSession> {
    const { sessionId } = await this.agent.request(methods.agent.session.new, {
      cwd: workspace.agentRoot,
      mcpServers: this.spec.mcpServers,
    });
    return this.adopt(new AcpSession(sessionId, contextId, workspace));
  }

  /**
   * Picks up a session of an earlier process (ACP `session/load`, for agents that advertise
   * `loadSession`). The agent replays the conversation as `session/update`s before it answers; the
   * session is registered only afterwards, so the replay is not taken for a new turn's output.
   */
  async loadSession(contextId: string, workspace: Workspace, sessionId: string): Promise<AcpSession> {
    await this.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: workspace.agentRoot,
      mcpServers: this.spec.mcpServers,
    });
    return this.adopt(new AcpSession(sessionId, contextId, workspace, true));
  }

  private adopt(session: AcpSession): AcpSession {
    const { sessionId, contextId } = session;
    const replaced = this.byContext.get(contextId);
    this.sessions.set(sessionId, session);
    this.byContext.set(contextId, session);
    if (replaced && !replaced.busy) this.retire(replaced);
    this.makeRoom(session);
    return session;
  }

  /** The live session of a context, marked as just used. */
  sessionOf(contextId: string): AcpSession | undefined {
    const session = this.byContext.get(contextId);
    if (session) {
      this.sessions.delete(session.sessionId);
      this.sessions.set(session.sessionId, session);
    }
    return session;
  }

  forget(session: AcpSession): void {
    this.sessions.delete(session.sessionId);
    if (this.byContext.get(session.contextId) === session) this.byContext.delete(session.contextId);
  }

  /** Lets go of the least recently used idle sessions beyond MAX_SESSIONS (never `made`, about to run). */
  private makeRoom(made: AcpSession): void {
    for (const session of this.sessions.values()) {
      if (this.sessions.size <= MAX_SESSIONS) return;
      if (session !== made && !session.busy) this.retire(session);
    }
  }

  /** Forgets a session and, when the agent supports `session/close`, lets it free what it holds. */
  private retire(session: AcpSession): void {
    this.forget(session);
    void session.terminals.releaseAll().catch(() => undefined);
    if (this.init?.agentCapabilities?.sessionCapabilities?.close) {
      this.agent.request(methods.agent.session.close, { sessionId: session.sessionId }).catch(() => undefined);
    }
  }

  /**
   * Ends the process because the connection can no longer be trusted. Every prompt still in flight
   * rejects, and its turn reports `reason` (from `failure()`).
   */
  async abandon(reason: string, retryable: boolean, graceMs: number, waitForEof = false): Promise<void> {
    this.fatal ??= { reason, retryable };
    await this.stop(graceMs, waitForEof);
  }

  /** stdin end → (wait) → SIGTERM → SIGKILL after `graceMs`; kills every terminal the agent opened. */
  async stop(graceMs: number, waitForEof = true): Promise<void> {
    await stopChildAndDescendants(this.child, { graceMs, eofMs: waitForEof ? graceMs : 0 });
    this.connection.close();
    await Promise.all([...this.sessions.values()].map((s) => s.terminals.releaseAll()));
  }

  private async initialize(): Promise<InitializeResponse> {
    const request = this.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: clientCapabilities(this.spec.flags),
      clientInfo: { name: 'contactor', version: this.spec.clientVersion },
    });
    request.catch(() => undefined); // after a timeout nobody awaits it; stop() rejects it
    const { signal } = this.spec;
    const stopped = signal ? whenAborted(signal) : new Promise<never>(() => undefined);
    const answer = await Promise.race([within(request, this.spec.initializeTimeoutMs), stopped]);
    if (answer === 'aborted') throw new Error('the bridge stopped before the agent answered initialize');
    if (!answer) throw new Error(`no answer to initialize within ${this.spec.initializeTimeoutMs} ms`);
    return answer;
  }
}
