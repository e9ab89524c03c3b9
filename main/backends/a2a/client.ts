/**
 * Talking to a remote A2A peer through the official client, @a2a-js/sdk: it reads the card (either
 * version: `legacyCompat` turns a v0.3 card into the v1 shape), speaks the JSON-RPC binding of the
 * version the chosen interface names (v1, or v0.3 through its compat transport), reads SSE and turns
 * JSON-RPC errors into errors with their code. What is ours: the peer's results in one small event
 * shape — through ProtoJSON and the same v1 converters the bridge serves with, so nothing about either
 * wire is written here — and every failure as a PeerError that says whether a retry can help.
 *
 * The SDK is loaded when a peer is first contacted: a bridge without `a2a` agents never loads it.
 */
import type { AgentCard, StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { Artifact, Message } from '../../domain/task.js';
import { PeerCardSchema, type PeerCard } from '../../schema/a2a-remote.js';
import type { WireTaskState } from '../../schema/a2a.js';
import { StreamResponseV1Schema } from '../../schema/a2a-v1.js';
import {
  artifactFromV1,
  messageFromV1,
  sendRequestToV1,
  taskFromV1,
  taskStateFromV1,
} from '../../transport/a2a-v1-convert.js';
import { PeerError, peerFetch } from './fetch.js';
import { isAbort } from '../shared/fetch-util.js';

export type PeerProtocol = '1.0' | '0.3';
/** A card as the SDK resolved it (v1 shape), handed back to it for the client. */
export type SdkCard = AgentCard;

export interface PeerTaskView {
  id: string;
  contextId: string;
  state: WireTaskState;
  statusMessage?: Message;
  /** Tells one status from the next (its message id, else its timestamp). */
  statusKey?: string;
  artifacts: Artifact[];
  metadata: Record<string, unknown>;
}

export type PeerEvent =
  | { kind: 'task'; task: PeerTaskView }
  | { kind: 'message'; message: Message }
  | { kind: 'status'; taskId: string; contextId: string; state: WireTaskState; message?: Message }
  | { kind: 'artifact'; taskId: string; contextId: string; artifact: Artifact; append: boolean };

export interface StreamFrame {
  /** The SSE `id:` (a contactor peer sends its event sequence number), for resuming. */
  id?: string;
  event: PeerEvent;
}

type Headers = () => Record<string, string>;

const sdk = lazy(async () => ({
  core: await import('@a2a-js/sdk'),
  client: await import('@a2a-js/sdk/client'),
  compat: await import('@a2a-js/sdk/compat/v0_3'),
}));

/**
 * The peer's card as the SDK resolves it (v1 shape). A card is the peer's own claim: it is read
 * leniently (PeerCardSchema; the few members the SDK's v0.3 translation requires default to empty).
 */
export async function readPeerCard(
  url: string,
  opts: { headers: Headers; signal: AbortSignal; protocol: 'auto' | PeerProtocol },
): Promise<{ card: PeerCard; sdkCard: AgentCard; cardUrl: string }> {
  const { client } = await sdk();
  const base = `${url.replace(/\/+$/, '')}/`;
  const cardUrl = new URL('.well-known/agent-card.json', base).href;
  const fetchImpl = peerFetch({
    // Pinned to 0.3, the card is asked for without the SDK's `A2A-Version: 1.0` (a 0.3 peer never saw it).
    headers: () => ({ ...opts.headers(), ...(opts.protocol === '0.3' ? { 'A2A-Version': undefined } : {}) }),
    signal: opts.signal,
    doing: 'read the agent card',
  });
  const resolver = new client.DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
  const normalize = resolver.normalizeAgentCard.bind(resolver);
  const notACard = (): PeerError => new PeerError(`${cardUrl} is not an A2A agent card`, { retryable: false });
  resolver.normalizeAgentCard = (raw) => {
    const lenient = PeerCardSchema.safeParse(raw);
    if (!lenient.success) throw notACard();
    return normalize({ skills: [], defaultInputModes: [], defaultOutputModes: [], ...lenient.data });
  };
  let sdkCard: AgentCard;
  try {
    sdkCard = await resolver.resolve(base);
  } catch (err) {
    if (err instanceof PeerError || isAbort(err)) throw err;
    throw notACard();
  }
  const card = PeerCardSchema.safeParse(sdkCard);
  if (!card.success) throw notACard();
  return { card: card.data, sdkCard, cardUrl };
}

/** One turn's client of the peer, on the interface the card offered. */
export class PeerClient {
  private constructor(
    private readonly client: Client,
    private readonly modules: Awaited<ReturnType<typeof sdk>>,
    private readonly protocol: PeerProtocol,
    /** The SSE ids of the current stream's events not yet passed on, oldest first. */
    private readonly eventIds: (string | undefined)[],
  ) {}

  static async open(
    peer: { sdkCard: AgentCard; endpoint: string; protocol: PeerProtocol },
    headers: Headers,
  ): Promise<PeerClient> {
    const modules = await sdk();
    const { ClientFactory, JsonRpcTransportFactory } = modules.client;
    const eventIds: (string | undefined)[] = [];
    const fetchImpl = peerFetch({ headers, onEventId: (id) => eventIds.push(id) });
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    });
    // Only the interface we chose: the factory would otherwise prefer a 1.0 one over a pinned 0.3.
    const client = await factory.createFromAgentCard({
      ...peer.sdkCard,
      supportedInterfaces: [
        { url: peer.endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: peer.protocol },
      ],
    });
    return new PeerClient(client, modules, peer.protocol, eventIds);
  }

  /** Not blocking: the task comes back at once, to be polled (or the peer's direct Message). */
  async send(message: Message, signal: AbortSignal): Promise<PeerEvent> {
    const { core } = this.modules;
    const params = core.SendMessageRequest.fromJSON(sendRequestToV1({ message, configuration: { blocking: false } }));
    const result = await this.call('SendMessage', () => this.client.sendMessage(params, { signal }));
    return toEvent(
      'messageId' in result ? { message: core.Message.toJSON(result) } : { task: core.Task.toJSON(result) },
    );
  }

  stream(message: Message, signal: AbortSignal): AsyncGenerator<StreamFrame> {
    const params = this.modules.core.SendMessageRequest.fromJSON(sendRequestToV1({ message }));
    return this.frames('SendStreamingMessage', () => this.client.sendMessageStream(params, { signal }));
  }

  /** A dropped stream, resumed after the last event seen when there is one. */
  resubscribe(taskId: string, signal: AbortSignal, lastEventId?: string): AsyncGenerator<StreamFrame> {
    const serviceParameters: Record<string, string> = lastEventId !== undefined ? { 'Last-Event-ID': lastEventId } : {};
    return this.frames('SubscribeToTask', () =>
      this.client.resubscribeTask({ id: taskId, tenant: '' }, { signal, serviceParameters }),
    );
  }

  async get(taskId: string, signal: AbortSignal): Promise<PeerEvent> {
    const task = await this.call('GetTask', () => this.client.getTask({ id: taskId, tenant: '' }, { signal }));
    return toEvent({ task: this.modules.core.Task.toJSON(task) });
  }

  async cancel(taskId: string, signal: AbortSignal): Promise<void> {
    await this.call('CancelTask', () =>
      this.client.cancelTask({ id: taskId, tenant: '', metadata: undefined }, { signal }),
    );
  }

  private async call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw this.failure(method, err);
    }
  }

  private async *frames(method: string, open: () => AsyncGenerator<StreamResponse>): AsyncGenerator<StreamFrame> {
    this.eventIds.length = 0;
    try {
      for await (const response of open()) {
        const id = this.eventIds.shift();
        yield {
          ...(id !== undefined ? { id } : {}),
          event: toEvent(this.modules.core.StreamResponse.toJSON(response)),
        };
      }
    } catch (err) {
      throw this.failure(method, err);
    }
  }

  /** The SDK's errors as PeerErrors; aborts and our own PeerErrors pass as they are. */
  private failure(v1Method: string, err: unknown): unknown {
    if (err instanceof PeerError || isAbort(err)) return err;
    const method = this.protocol === '1.0' ? v1Method : this.modules.compat.v1MethodToLegacyJsonRpc(v1Method);
    // A JSON-RPC error answer: the SDK's A2AError carries its code (an SSE `error` event's, as the cause).
    const rpc = rpcErrorOf(err) ?? rpcErrorOf((err as { cause?: unknown } | undefined)?.cause);
    if (rpc) {
      return new PeerError(`${method} failed at the peer: ${rpc.message} (code ${rpc.code})`, {
        retryable: RETRYABLE_CODES.has(rpc.code),
        code: rpc.code,
      });
    }
    const said = err instanceof Error ? err.message : String(err);
    return new PeerError(`${method}: the peer's reply is not valid A2A (${said.slice(0, 200)})`, { retryable: false });
  }
}

/** Queue full, rate limited (contactor -32064/-32065) and internal errors may pass; the rest will not. */
const RETRYABLE_CODES = new Set([-32603, -32064, -32065]);

function rpcErrorOf(err: unknown): { code: number; message: string } | undefined {
  const e = err as { envelopeCode?: unknown; message?: unknown } | undefined;
  return typeof e?.envelopeCode === 'number' ? { code: e.envelopeCode, message: String(e.message) } : undefined;
}

/**
 * One result (ProtoJSON of a v1 StreamResponse, as the SDK writes it) in the common shape. ProtoJSON
 * leaves an unspecified state out; the schema wants it named.
 */
function toEvent(json: unknown): PeerEvent {
  const parsed = StreamResponseV1Schema.safeParse(withStates(json));
  if (!parsed.success) throw unreadable(json);
  const r = parsed.data;
  if (r.task) return { kind: 'task', task: view(taskFromV1(r.task)) };
  if (r.message) return { kind: 'message', message: messageFromV1(r.message) };
  if (r.statusUpdate) {
    const { taskId, contextId, status } = r.statusUpdate;
    return {
      kind: 'status',
      taskId,
      contextId,
      state: taskStateFromV1(status.state),
      ...(status.message ? { message: messageFromV1(status.message) } : {}),
    };
  }
  const a = r.artifactUpdate!;
  return {
    kind: 'artifact',
    taskId: a.taskId,
    contextId: a.contextId,
    artifact: artifactFromV1(a.artifact),
    append: a.append ?? false,
  };
}

function withStates(json: unknown): unknown {
  const r = json as { task?: { status?: object }; statusUpdate?: { status?: object } };
  const named = (status: object | undefined) => ({ state: 'TASK_STATE_UNSPECIFIED', ...status });
  if (r.task) return { ...r, task: { ...r.task, status: named(r.task.status) } };
  if (r.statusUpdate) return { ...r, statusUpdate: { ...r.statusUpdate, status: named(r.statusUpdate.status) } };
  return json;
}

function view(task: ReturnType<typeof taskFromV1>): PeerTaskView {
  const statusKey = task.status.message?.messageId ?? task.status.timestamp;
  return {
    id: task.id,
    contextId: task.contextId,
    state: task.status.state,
    ...(task.status.message ? { statusMessage: task.status.message } : {}),
    ...(statusKey ? { statusKey } : {}),
    artifacts: task.artifacts,
    metadata: task.metadata,
  };
}

function unreadable(result: unknown): PeerError {
  return new PeerError(
    `the peer sent a result that is not an A2A task, message or event: ${JSON.stringify(result)?.slice(0, 160)}`,
    { retryable: false },
  );
}

function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}
