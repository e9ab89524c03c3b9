/**
 * `contactor acp`: an ACP agent (docs/contract.md#acp) in front of the bridge. A session is a contactor
 * context; its agent is the session config option `agent`; each prompt is a task in that context, streamed
 * back as `session/update`s; a question the task asks goes to the editor as `session/request_permission` and
 * its answer back through `tasks/answer`; `session/cancel` is `tasks/cancel`. Every call is an ordinary
 * bridge call with the token the link carries: the bridge's authority table decides, as for any client.
 */
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { setTimeout as pause } from 'node:timers/promises';
import {
  agent,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentContext,
  type PromptResponse,
  type SessionConfigOption,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import { textOf, type Part } from '../../domain/task.js';
import {
  AgentCardSchema,
  AgentListSchema,
  CliTaskSchema,
  TaskPageSchema,
  type CliTask,
  type StreamResult,
} from '../../schema/cli.js';
import { BridgeFailure, type BridgeLink, type LinkedEvent } from './bridge-link.js';
import { promptOf } from './prompt-content.js';
import { permissionRequestOf } from './questions.js';
import { historyUpdates, updatesOf } from './task-updates.js';

export interface AcpFrontOptions {
  /** The running bridge, located (and started) again for each session request: it may have restarted. */
  link(): Promise<BridgeLink>;
  /** `--agent`: a new session's agent; default the first the bridge lists. */
  defaultAgent?: string | undefined;
  /** The delegation fields of a send (docs/contract.md#agent-environment), from the prompt's `_meta`. */
  delegation(meta: unknown): Record<string, unknown>;
  version: string;
}

interface Turn {
  taskId?: string;
  cancelled: boolean;
  /** Ends the editor's open permission request when the turn is canceled. */
  question?: AbortController;
}

interface Session {
  agent: string;
  agents: { name: string; description: string }[];
  turn?: Turn;
}

const AGENT_OPTION = 'agent';
const HISTORY_PAGE = 100;
/** Pauses before following a task again once its bridge went away; after the last one the prompt fails. */
const RESUME_DELAYS_MS = [100, 250, 500, 1000, 2000, 4000];
/** `answeredBy` holds at most 100 characters (docs/contract.md#acp): "ACP client " and the name must fit. */
const CLIENT_NAME_MAX = 80;
/** How often a canceled task is read again until its turn has ended. */
const STOPPED_POLL_MS = 50;

export function acpFrontDoor(opts: AcpFrontOptions) {
  const sessions = new Map<string, Session>();
  let clientName = 'unnamed';

  return agent({ name: 'contactor' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      if (params.clientInfo?.name) clientName = params.clientInfo.name.slice(0, CLIENT_NAME_MAX);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'contactor', title: 'contactor', version: opts.version },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: true, embeddedContext: true },
        },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async () => {
      const link = await linked(opts);
      const agents = await agentsOf(link);
      const chosen = opts.defaultAgent ?? agents[0]?.name;
      if (chosen === undefined)
        throw new RequestError(
          -32060,
          'the bridge has no agents configured; add one to config.yaml (`contactor setup`)',
        );
      if (!agents.some((a) => a.name === chosen))
        await bridged(() => link.call('agents/card', { agent: chosen }, AgentCardSchema));
      const sessionId = randomUUID();
      sessions.set(sessionId, { agent: chosen, agents });
      return { sessionId, configOptions: configOptions(sessions.get(sessionId)!) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const link = await linked(opts);
      const tasks = await bridged(() =>
        link.call(
          'tasks/list',
          { contextId: params.sessionId, pageSize: HISTORY_PAGE, historyLength: 1000, includeArtifacts: true },
          TaskPageSchema,
        ),
      );
      if (tasks.tasks.length === 0) throw RequestError.sessionNotFound(params.sessionId);
      const inOrder = [...tasks.tasks].sort((a, b) => createdAt(a).localeCompare(createdAt(b)));
      for (const update of historyUpdates(inOrder)) await notify(client, params.sessionId, update);
      const agents = await agentsOf(link);
      const session: Session = { agent: inOrder.at(-1)!.metadata.agent, agents };
      sessions.set(params.sessionId, session);
      return { configOptions: configOptions(session) };
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
      const session = sessionOf(sessions, params.sessionId);
      if (params.configId !== AGENT_OPTION)
        throw RequestError.invalidParams(
          undefined,
          `no session option "${params.configId}"; the one option is "agent"`,
        );
      const value = String(params.value);
      if (!session.agents.some((a) => a.name === value))
        throw new RequestError(
          -32060,
          `no agent named "${value}"; configured agents: ${session.agents.map((a) => a.name).join(', ')}`,
        );
      session.agent = value;
      return { configOptions: configOptions(session) };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessionOf(sessions, params.sessionId);
      if (session.turn)
        throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session; cancel it first');
      const turn: Turn = { cancelled: false };
      session.turn = turn;
      try {
        const link = await linked(opts);
        const { text, files } = promptOf(params.prompt);
        const send = {
          agent: session.agent,
          text,
          contextId: params.sessionId,
          messageId: randomUUID(),
          ...(files.length ? { files } : {}),
          ...opts.delegation(params._meta),
        };
        return await runTurn(
          { link, relink: () => linked(opts), client, sessionId: params.sessionId, turn, clientName, signal },
          send,
        );
      } finally {
        session.turn = undefined;
      }
    })
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      const turn = sessions.get(params.sessionId)?.turn;
      if (!turn || turn.cancelled) return;
      turn.cancelled = true;
      turn.question?.abort();
      if (turn.taskId === undefined) return;
      try {
        await cancelTask(await linked(opts), turn.taskId);
      } catch {
        // No bridge to ask: the prompt's own follow-up finds it again (or fails) and says how the task ended.
      }
    });
}

/** Serves the front door on this process's stdin and stdout until the editor closes them. */
export async function serveOnStdio(opts: AcpFrontOptions): Promise<void> {
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout),
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = acpFrontDoor(opts).connect(stream);
  await connection.closed;
}

interface TurnScope {
  link: BridgeLink;
  /** The bridge found (or started) again, after it went away mid-turn. */
  relink(): Promise<BridgeLink>;
  client: AgentContext;
  sessionId: string;
  turn: Turn;
  clientName: string;
  /** The prompt's life: ends when the editor withdraws the request or the connection closes. */
  signal: AbortSignal;
}

/**
 * One prompt: the task's stream until it stops, a question answered by the editor and followed again, until
 * the task settles. The stop reason says how: `cancelled` once the task is canceled and its turn has ended
 * (the agent has stopped), `refusal` for a task a loop guard rejected.
 */
async function runTurn(scope: TurnScope, send: Record<string, unknown>): Promise<PromptResponse> {
  const { client, sessionId, turn } = scope;
  let request: { method: string; params: unknown } = { method: 'message/stream', params: send };
  let lastSeq: number | undefined;
  let drops = 0;
  for (;;) {
    let taskId = turn.taskId;
    try {
      const events = scope.link.stream(
        request.method,
        request.params,
        lastSeq !== undefined ? { lastEventId: lastSeq } : {},
      );
      for await (const event of stoppedIsEmpty(events, request.method)) {
        drops = 0;
        if (event.seq !== undefined) lastSeq = event.seq;
        if (taskId === undefined) {
          taskId = idOf(event.result);
          turn.taskId = taskId;
          if (turn.cancelled) void cancelTask(scope.link, taskId);
        }
        for (const update of updatesOf(event.result)) await notify(client, sessionId, update);
        if (endsStream(event.result)) break;
      }
    } catch (err) {
      // The bridge went away mid-turn (killed, restarted): found (or started) again, the task is followed on
      // from the last event seen; before the task was named a re-send could run it twice, so that fails.
      const delay = RESUME_DELAYS_MS[drops];
      if (!(err instanceof BridgeFailure && err.dropped && taskId !== undefined && delay !== undefined))
        throw acpError(err);
      drops += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
      scope.link = await scope.relink();
      request = { method: 'tasks/resubscribe', params: { id: taskId } };
      continue;
    }
    if (taskId === undefined)
      throw RequestError.internalError(undefined, 'the bridge ended the stream before naming the task');
    const link = scope.link;
    const task = await bridged(() => link.call('tasks/get', { id: taskId }, CliTaskSchema));
    const state = task.status.state;
    if (state === 'completed') return { stopReason: 'end_turn' };
    if (state === 'canceled') {
      await turnEnded(scope, task);
      return { stopReason: 'cancelled' };
    }
    if (state === 'rejected') return refused(scope, task);
    if (state === 'failed')
      throw new RequestError(-32603, `task ${task.id} failed: ${reason(task) || 'no reason given'}`, {
        taskId: task.id,
        retryable: task.metadata.retryable,
      });
    if (state === 'auth-required')
      throw RequestError.authRequired(
        { taskId: task.id },
        `task ${task.id} needs the agent signed in: ${reason(task)}`,
      );
    if (state === 'input-required' && task.metadata.pending && !turn.cancelled) await ask(scope, task);
    request = { method: 'tasks/resubscribe', params: { id: taskId } };
  }
}

/** The editor is the person's screen: what it selects is the person's answer, named for the record. */
async function ask(scope: TurnScope, task: CliTask): Promise<void> {
  const { link, client, sessionId, turn } = scope;
  const question = new AbortController();
  turn.question = question;
  let outcome;
  try {
    outcome = (
      await client.request(
        methods.client.session.requestPermission,
        permissionRequestOf(sessionId, task.id, task.metadata.pending!),
        {
          cancellationSignal: question.signal,
        },
      )
    ).outcome;
  } catch (err) {
    if (turn.cancelled) return;
    throw err;
  } finally {
    turn.question = undefined;
  }
  if (outcome.outcome === 'cancelled' || turn.cancelled) {
    // Without a session/cancel an editor's "cancelled" is still the person stopping the work.
    turn.cancelled = true;
    await cancelTask(link, task.id);
    return;
  }
  const answer = { taskId: task.id, answer: outcome.optionId };
  try {
    await link.call('tasks/answer', { ...answer, answeredBy: `ACP client ${scope.clientName}` }, CliTaskSchema);
  } catch (err) {
    // The name is a label the bridge keeps beside the person's proof, and refuses from an agent's token
    // (SECURITY.md#who-may-do-what): a front door run with an agent's token answers as that agent, unnamed.
    if (!(err instanceof BridgeFailure && err.code === -32066 && isAgent(err.data))) throw acpError(err);
    await bridged(() => link.call('tasks/answer', answer, CliTaskSchema));
  }
}

function isAgent(data: unknown): boolean {
  const identity = (data as { identity?: unknown } | undefined)?.identity;
  return typeof identity === 'string' && identity.startsWith('agent ');
}

async function refused(scope: TurnScope, task: CliTask): Promise<PromptResponse> {
  const why = reason(task);
  const stopReason: StopReason = 'refusal';
  await notify(scope.client, scope.sessionId, {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `task ${task.id} was rejected${why ? `: ${why}` : ''}` },
  });
  return { stopReason };
}

/**
 * A task turns canceled the moment the bridge takes the cancel; its agent stops after that, and the bridge
 * records when the turn ended (receipt.turnEndedAt, docs/contract.md#task-metadata). ACP's cancelled means
 * the agent has stopped, so the prompt waits for that fact, for as long as the prompt lives. A task
 * canceled before its turn started, or between turns, has no turn to wait for.
 */
async function turnEnded(scope: TurnScope, task: CliTask): Promise<void> {
  let current = task;
  while (turnRunning(current)) {
    try {
      await pause(STOPPED_POLL_MS, undefined, { signal: scope.signal });
      current = await scope.link.call('tasks/get', { id: task.id }, CliTaskSchema);
    } catch {
      // The editor went away, or no bridge to ask: the task is canceled all the same.
      return;
    }
  }
}

function turnRunning(task: CliTask): boolean {
  const receipt = task.metadata.receipt as Record<string, unknown> | undefined;
  return receipt?.turnStartedAt !== undefined && receipt.turnEndedAt === undefined;
}

async function cancelTask(link: BridgeLink, taskId: string): Promise<void> {
  try {
    await link.call('tasks/cancel', { id: taskId }, CliTaskSchema);
  } catch {
    // Already settled: the stream says how it ended.
  }
}

async function notify(client: AgentContext, sessionId: string, update: SessionUpdate): Promise<void> {
  await client.notify(methods.client.session.update, { sessionId, update });
}

function sessionOf(sessions: Map<string, Session>, sessionId: string): Session {
  const session = sessions.get(sessionId);
  if (!session) throw RequestError.sessionNotFound(sessionId);
  return session;
}

async function linked(opts: AcpFrontOptions): Promise<BridgeLink> {
  return bridged(() => opts.link());
}

/** A failed bridge call as an ACP error, in the words the CLI prints and with the bridge's code. */
async function bridged<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw acpError(err);
  }
}

function acpError(err: unknown): unknown {
  return err instanceof BridgeFailure ? new RequestError(err.code ?? -32603, err.message, err.data) : err;
}

async function agentsOf(link: BridgeLink): Promise<{ name: string; description: string }[]> {
  const list = await bridged(() => link.call('agents/list', {}, AgentListSchema));
  return list.agents.map((a) => ({ name: a.name, description: a.description }));
}

function configOptions(session: Session): SessionConfigOption[] {
  return [
    {
      id: AGENT_OPTION,
      name: 'Agent',
      description: 'the contactor agent this session talks to',
      type: 'select',
      currentValue: session.agent,
      options: session.agents.map((a) => ({
        value: a.name,
        name: a.name,
        ...(a.description ? { description: a.description } : {}),
      })),
    },
  ];
}

/**
 * The bridge refuses to subscribe to a task that already stopped (-32004: canceled or answered elsewhere
 * meanwhile): nothing more to stream, `tasks/get` says how it ended.
 */
async function* stoppedIsEmpty(events: AsyncIterable<LinkedEvent>, method: string): AsyncGenerator<LinkedEvent> {
  try {
    yield* events;
  } catch (err) {
    if (method === 'tasks/resubscribe' && err instanceof BridgeFailure && err.code === -32004) return;
    throw err;
  }
}

function idOf(result: StreamResult): string {
  return result.kind === 'task' ? result.id : result.taskId;
}

/** The end of an interaction (A2A §3.1.2): a final status, or a snapshot already at a stop. */
function endsStream(result: StreamResult): boolean {
  if (result.kind === 'status-update') return result.final;
  if (result.kind === 'task') return !['submitted', 'working'].includes(result.status.state);
  return false;
}

function reason(task: CliTask): string {
  return task.status.message ? textOf(task.status.message.parts as Part[]) : '';
}

function createdAt(task: CliTask): string {
  const at = (task.metadata as { createdAt?: unknown }).createdAt;
  return typeof at === 'string' ? at : (task.status.timestamp ?? '');
}
