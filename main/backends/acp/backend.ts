/**
 * Every ACP agent (dsh, Hermes, claude-agent-acp, codex-acp, Gemini CLI, OpenCode, ...) through one class, with
 * no agent-specific code. One long-lived process per agent, started by the first turn and stopped
 * after `idle_timeout_s` without a turn in flight; one ACP session per A2A contextId for as long as
 * that process lives. Receipts carry only what was observed (adapter contracts: never report a
 * session, id or step that did not happen).
 */
import { DEFAULT_MAX_MESSAGE_BYTES, RequestError } from '@agentclientprotocol/sdk';
import type { AcpAgentConfig } from '../../schema/config.js';
import type { AgentLog } from '../process/agent-log.js';
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../../ports.js';
import { currentAppExe } from '../process/agent-env.js';
import { AcpConnection, StartFailure } from './connection.js';
import { planLaunch, type LaunchPlan } from './launch.js';
import { agentErrorMessage, authHint, isAuthRequired } from './outcome.js';
import { redact } from '../../domain/redaction.js';
import { runPromptTurn } from './prompt-turn.js';
import { ABORTED, raceAbort } from './race-abort.js';
import type { AcpSession } from './session.js';
import { Workspace } from './workspace.js';
import type { ProtectedFiles } from '../../platform/protected-files.js';
import type { AgentWrites } from '../../platform/agent-writes.js';
import { SHUTTING_DOWN, SHUTTING_DOWN_REASON, STOPPED } from '../shared/outcomes.js';
import { nodeWin32Probe } from '../process/win32-command.js';
import type { CliInstall } from '../process/contactor-cli.js';
import { offeredMcpServers } from './mcp-offer.js';

export interface AcpBackendOptions {
  name: string;
  config: AcpAgentConfig;
  /** What the agent may inherit, with CONTACTOR_URL / CONTACTOR_TOKEN / CONTACTOR_AGENT already set. */
  baseEnv: Record<string, string>;
  /** Wait after stdin end and after SIGTERM when the process is stopped (default 2000 ms). */
  graceMs?: number;
  /** Largest message accepted from the agent (default: the SDK's 32 MiB). */
  maxMessageBytes?: number;
  /** How long the agent may take to start and answer `initialize` (default: its `start_timeout_s`). */
  initializeTimeoutMs?: number;
  /** Reported to the agent in `clientInfo`. */
  clientVersion?: string;
  /** The bridge's data dir and config: never served through fs/* or terminal/*, whatever the root. */
  ownFiles?: ProtectedFiles;
  /** Where fs/write_text_file writes are noted: a config edit an agent wrote is not applied (config-reload.ts). */
  agentWrites?: AgentWrites;
  /** Where the agent's stderr is kept (`contactor logs <agent>`). */
  stderrLog?: AgentLog;
  /** How this install runs its CLI, for the `contactor mcp` offered in each session (mcp-offer.ts); none without. */
  cliInstall?: CliInstall;
  /** Raw-input fields the agent changes between two issues of one call (domain/tool-call-identity.ts). */
  volatileInputFields?: readonly string[];
  /** The npm package of a known agent's program, named when the program is missing (config/known-agents.ts). */
  npmPackage?: string;
}

const STOPPED_FOR_CANCEL =
  'its process was stopped to cancel another task, which ended every session it held; re-send the task';

export class AcpBackend implements AgentBackend {
  readonly traits: AgentTraits = {
    backend: 'acp',
    streaming: true,
    inputRequired: true,
    interruptible: true,
    multiTurn: true,
    limits: '',
  };

  private connection: AcpConnection | undefined;
  private starting: Promise<AcpConnection> | undefined;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Aborted by `close`: a start still waiting for `initialize` kills its process at once. */
  private readonly closing = new AbortController();
  private readonly graceMs: number;
  private readonly env: Record<string, string>;

  constructor(private readonly options: AcpBackendOptions) {
    this.graceMs = options.graceMs ?? 2000;
    this.env = { ...options.baseEnv, ...options.config.env };
  }

  async run(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (this.closed) return SHUTTING_DOWN;
    if (turn.signal.aborted) return STOPPED;
    this.inFlight += 1;
    clearTimeout(this.idleTimer);
    try {
      report.receipt({ requestedForm: 'acp' });
      const conn = await this.connect(turn, report);
      if (!(conn instanceof AcpConnection)) return conn;
      const held = conn.sessionOf(turn.contextId);
      const session = await this.session(conn, held, turn, report);
      if (!('sessionId' in session)) return session;
      // A follow-up whose session is gone (the process idled out or crashed, and it could not be loaded):
      // tell the agent everything again.
      const continuing = turn.followUp || turn.reattach !== undefined;
      // The turn's signal is a getter on its class (runtime/running-turn.ts), which a spread does not copy.
      const told =
        continuing && session !== held && !session.reloaded && turn.cold
          ? { ...turn, ...turn.cold, signal: turn.signal }
          : turn;
      return await session.exclusive(() =>
        runPromptTurn({
          agent: this.options.name,
          conn,
          session,
          turn: told,
          report,
          cancelGraceMs: this.options.config.cancel_grace_s * 1000,
          volatileInputFields: this.options.volatileInputFields ?? [],
          escalate: () => this.abandon(conn, STOPPED_FOR_CANCEL),
        }),
      );
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) this.armIdleTimer();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    // "Stopped" means gone: an agent that never answers `initialize` must not outlive the stop by the
    // start timeout (the start sees the abort, kills its process and fails).
    this.closing.abort();
    const conn = this.connection ?? (await this.starting?.catch(() => undefined));
    this.connection = undefined;
    if (!conn) return;
    // Turns still running fail retryable; the process gets the full stdin → SIGTERM → SIGKILL sequence.
    await conn.abandon(SHUTTING_DOWN_REASON, true, this.graceMs, true).catch(() => undefined);
  }

  private async connect(turn: Turn, report: TurnReporter): Promise<AcpConnection | TurnOutcome> {
    let reused = true;
    if (!this.connection?.alive) {
      const dead = this.connection;
      this.connection = undefined;
      if (dead) void dead.stop(0); // reap what a crashed agent left behind
      reused = false;
      this.starting ??= this.start().finally(() => (this.starting = undefined));
    }
    let conn: AcpConnection;
    try {
      conn = this.connection ?? (await raceAbort(this.starting!, turn.signal));
    } catch (err) {
      if (err === ABORTED) return STOPPED;
      if (err instanceof StartFailure) return { kind: 'undelivered', retryable: err.retryable, reason: err.message };
      throw err;
    }
    const pidStart = await conn.pidStart;
    report.receipt({
      pid: conn.pid,
      ...(pidStart !== undefined ? { pidStart } : {}),
      processReused: reused,
      launchedVia: conn.launchedVia,
      protocolVersion: conn.init?.protocolVersion,
      ...(conn.init?.agentInfo ? { agentInfo: conn.init.agentInfo } : {}),
    });
    return conn;
  }

  private async start(): Promise<AcpConnection> {
    const { config } = this.options;
    const workspace = await this.workspace().catch((err: Error) => {
      throw new StartFailure(err.message, false);
    });
    const forwardEnv = [...Object.keys(config.env), ...Object.keys(this.env).filter((k) => k.startsWith('CONTACTOR_'))];
    const plan = (command: string[], agentCwd: string, hostCwd: string, env: Record<string, string>): LaunchPlan =>
      planLaunch({
        command,
        platform: config.platform,
        distro: config.distro,
        agentCwd,
        hostCwd,
        env: { ...this.env, ...env },
        forwardEnv: [...forwardEnv, ...Object.keys(env)],
        hostPlatform: process.platform,
        probe: nodeWin32Probe,
        appExe: currentAppExe(),
      });
    let launch: LaunchPlan;
    try {
      launch = plan(config.command, workspace.agentRoot, workspace.hostRoot, {});
    } catch (err) {
      throw new StartFailure(`cannot run agent ${this.options.name}: ${(err as Error).message}`, false);
    }
    const conn = await AcpConnection.open({
      agent: this.options.name,
      plan: launch,
      flags: { fs_read: config.fs_read, fs_write: config.fs_write, terminal: config.terminal },
      terminalPlan: plan,
      maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      initializeTimeoutMs: this.options.initializeTimeoutMs ?? config.start_timeout_s * 1000,
      clientVersion: this.options.clientVersion ?? '0.1.0',
      mcpServers: offeredMcpServers({
        enabled: config.offer_mcp,
        platform: config.platform,
        distro: config.distro,
        install: this.options.cliInstall,
        env: this.env,
      }),
      signal: this.closing.signal,
      ...(this.options.stderrLog ? { stderrLog: this.options.stderrLog } : {}),
      ...(this.options.npmPackage ? { npmPackage: this.options.npmPackage } : {}),
    });
    if (this.closed) {
      await conn.stop(this.graceMs);
      throw new StartFailure(SHUTTING_DOWN_REASON, true);
    }
    this.connection = conn;
    // The turn that started it may have been aborted meanwhile and found no connection to idle out.
    if (this.inFlight === 0) this.armIdleTimer();
    return conn;
  }

  /** The task's cwd when it names one (a new session only: a live session keeps its own root). */
  private workspace(cwd?: string): Promise<Workspace> {
    const { config } = this.options;
    return Workspace.open(
      cwd ?? config.cwd ?? process.cwd(),
      config.platform,
      config.distro,
      this.options.ownFiles,
      this.options.agentWrites && { log: this.options.agentWrites, agent: this.options.name },
    );
  }

  /** `existing`: the context's live session, as `conn.sessionOf` returned it. */
  private async session(
    conn: AcpConnection,
    existing: AcpSession | undefined,
    turn: Turn,
    report: TurnReporter,
  ): Promise<AcpSession | TurnOutcome> {
    if (existing && (turn.followUp || (turn.reattach !== undefined && existing.sessionId === turn.reattach))) {
      report.receipt({ sessionId: existing.sessionId, sessionReused: true });
      return existing;
    }
    if (turn.reattach !== undefined && conn.init?.agentCapabilities?.loadSession) {
      try {
        const workspace = await this.workspace(turn.cwd);
        const loaded = await raceAbort(conn.loadSession(turn.contextId, workspace, turn.reattach), turn.signal);
        report.receipt({ sessionId: loaded.sessionId, sessionReused: false, sessionLoaded: true });
        return loaded;
      } catch (err) {
        if (err === ABORTED) return STOPPED;
        // Not fatal: a new session told the whole request (the turn's cold text) still gets the answer.
        // The agent's own words say why; they are its text, so credentials in them are removed.
        const why = err instanceof RequestError ? agentErrorMessage(err) : (err as Error).message;
        report.receipt({ sessionLoadFailed: redact(why, this.secrets()) });
      }
    }
    try {
      const workspace = await this.workspace(turn.cwd);
      const session = await raceAbort(conn.newSession(turn.contextId, workspace), turn.signal);
      report.receipt({
        sessionId: session.sessionId,
        sessionReused: false,
        ...(turn.followUp ? { earlierSessionLost: true } : {}),
      });
      return session;
    } catch (err) {
      if (err === ABORTED) return STOPPED;
      if (isAuthRequired(err)) return { kind: 'auth-required', reason: authHint(this.options.name, conn.init, err) };
      if (err instanceof RequestError && conn.alive) {
        return {
          kind: 'undelivered',
          retryable: true,
          reason: `agent ${this.options.name} refused session/new: ${err.message}`,
        };
      }
      if (!(err instanceof RequestError) && conn.alive) {
        return { kind: 'undelivered', retryable: false, reason: (err as Error).message }; // workspace missing
      }
      const failure = await conn.failure();
      return {
        kind: 'undelivered',
        retryable: failure.retryable,
        reason: `${failure.reason} before the session started`,
      };
    }
  }

  private async abandon(conn: AcpConnection, reason: string): Promise<void> {
    if (this.connection === conn) this.connection = undefined;
    await conn.abandon(`agent ${this.options.name}: ${reason}`, true, this.graceMs);
  }

  /** The tokens this agent was given (CONTACTOR_TOKEN): never echoed back from its own words. */
  private secrets(): string[] {
    return this.env.CONTACTOR_TOKEN ? [this.env.CONTACTOR_TOKEN] : [];
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    const conn = this.connection;
    if (!conn || this.closed) return;
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0 || this.connection !== conn) return;
      this.connection = undefined;
      void conn.stop(this.graceMs);
    }, this.options.config.idle_timeout_s * 1000);
    this.idleTimer.unref();
  }
}
