/**
 * Framework-free JSON-RPC 2.0 dispatch: envelope checks, method routing by protocol version, and the
 * error exposure rule — expected errors go out with their code and message; anything else becomes
 * -32603 with a correlation id, the details only in the log.
 */
import { authorizeCall, type Action } from '../domain/authority.js';
import { isBridgeError } from '../domain/errors.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { JsonRpcRequestSchema } from '../schema/rpc.js';
import { invalidRequest } from './invalid-request.js';
import { methodActions } from './method-actions.js';
import { bridgeMethods } from './methods-bridge.js';
import { v03Methods } from './methods-v03.js';
import { orchestrateMethods } from './methods-orchestrate.js';
import { v1Methods } from './methods-v1.js';
import { REASON_CODES, RpcError, errorBody, type RpcErrorBody } from './rpc-errors.js';
import { MAX_BATCH_REQUESTS, responseTooLarge, serializeWithin } from './response-size.js';
import {
  JsonText,
  StreamReply,
  type MethodContext,
  type MethodHandler,
  type ParsedBody,
  type RpcCall,
} from './rpc-types.js';

export interface RpcLog {
  error(details: Record<string, unknown>, message: string): void;
}

type Id = string | number | null;
export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: Id; result: unknown } | { jsonrpc: '2.0'; id: Id; error: RpcErrorBody };

/**
 * What the adapter sends back: one JSON document (or nothing, for notifications), or an SSE stream.
 * `text` is the document already serialized within the response bound (see response-size.ts).
 */
export type RpcOutcome =
  | { kind: 'json'; body: JsonRpcResponse | JsonRpcResponse[] | undefined; text?: string }
  | { kind: 'stream'; id: Id; reply: StreamReply }
  /** A stream whose only event is this error (`event: error`), for methods that always answer as SSE. */
  | { kind: 'stream-error'; body: JsonRpcResponse };

export interface EndpointLimits {
  /** The largest response, in bytes (response-size.ts responseLimitFor); unbounded when absent. */
  maxResponseBytes?: number;
}

export class JsonRpcEndpoint {
  private readonly bridge: Record<string, MethodHandler>;
  private readonly v03: Record<string, MethodHandler>;
  private readonly v1: Record<string, MethodHandler>;
  /** Every method's authority action (method-actions.ts): each method of the tables above has one. */
  private readonly actions: Record<string, Action>;

  constructor(
    ctx: MethodContext,
    private readonly log: RpcLog,
    private readonly limits: EndpointLimits = {},
  ) {
    this.bridge = { ...bridgeMethods(ctx), ...orchestrateMethods(ctx) };
    this.v03 = v03Methods(ctx);
    this.v03['tasks/send'] = this.v03['message/send']!;
    this.v1 = v1Methods(ctx);
    this.actions = methodActions(this.bridge, this.v03, this.v1);
  }

  /** Every method name served, in either protocol version. */
  methodNames(): string[] {
    return [...new Set([...Object.keys(this.bridge), ...Object.keys(this.v03), ...Object.keys(this.v1)])];
  }

  /** `body` was parsed by the adapter, as `call` was decided by it (version header, endpoint). */
  async handle(body: ParsedBody, call: RpcCall): Promise<RpcOutcome> {
    if (!body.json) return json(failure(null, new RpcError(-32700, 'request body is not valid JSON'), call));
    if (Array.isArray(body.value)) return this.handleBatch(body.value, call);
    const outcome = await this.handleOne(body.value, call, true);
    if (outcome.kind !== 'json' || outcome.body === undefined || Array.isArray(outcome.body)) return outcome;
    return { ...outcome, text: this.serialize(outcome.body, this.limits.maxResponseBytes, call) };
  }

  private async handleBatch(items: unknown[], call: RpcCall): Promise<RpcOutcome> {
    if (items.length === 0) return json(failure(null, new RpcError(-32600, 'an empty batch is not a request'), call));
    if (items.length > MAX_BATCH_REQUESTS) {
      const err = new RpcError(
        -32600,
        `a batch holds at most ${MAX_BATCH_REQUESTS} requests; this one has ${items.length}: split it`,
      );
      return json(failure(null, err, call));
    }
    // Only the replies' text is kept: holding every reply object too would keep the whole batch in memory.
    const texts: string[] = [];
    let room = this.limits.maxResponseBytes;
    for (const item of items) {
      const outcome = await this.handleOne(item, call, false);
      if (outcome.kind !== 'json' || !outcome.body || Array.isArray(outcome.body)) continue;
      // Once the batch is full, later requests still run (they were accepted) but answer an error.
      const text = this.serialize(outcome.body, room, call);
      texts.push(text);
      if (room !== undefined) room = Math.max(0, room - Buffer.byteLength(text) - 1);
    }
    return texts.length ? { kind: 'json', body: [], text: `[${texts.join(',')}]` } : json(undefined);
  }

  /** The reply as JSON text within `room` bytes, else an error with its id (which always fits). */
  private serialize(reply: JsonRpcResponse, room: number | undefined, call: RpcCall): string {
    const text = serializeWithin(reply, room ?? Number.MAX_SAFE_INTEGER, replyJson);
    if (text !== undefined) return text;
    const limit = this.limits.maxResponseBytes ?? 0;
    return JSON.stringify(failure(reply.id, responseTooLarge(limit), call));
  }

  private async handleOne(raw: unknown, call: RpcCall, streamAllowed: boolean): Promise<RpcOutcome> {
    if (exceedsDepth(raw, MAX_JSON_DEPTH)) {
      const err = new RpcError(-32600, `the request nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`);
      return json(failure(idOf(raw), err, call));
    }
    const envelope = JsonRpcRequestSchema.safeParse(raw);
    if (!envelope.success) {
      // Answered even without an id: an invalid request is no notification (JSON-RPC 2.0 §5, id null).
      return json(failure(idOf(raw), invalidRequest(raw, envelope.error.issues), call));
    }
    const { id, method, params } = envelope.data;
    const replyId: Id = id ?? null;
    if (call.versionError) return json(id === undefined ? undefined : failure(replyId, call.versionError, call));
    try {
      const handler = this.route(method, call);
      // The one gate every method passes (SECURITY.md#who-may-do-what); a lookup, no allocation.
      authorizeCall(this.actions[method]!, call.identity);
      const result = await handler(params, call);
      if (result instanceof StreamReply) {
        if (!streamAllowed) throw new RpcError(-32600, `${method} streams its result and cannot be part of a batch`);
        return { kind: 'stream', id: replyId, reply: result };
      }
      if (id === undefined) return json(undefined);
      return json({ jsonrpc: '2.0', id: replyId, result: result ?? null });
    } catch (err) {
      if (isBridgeError(err) && err.reason === 'unauthorized') call.onNotPermitted?.(method);
      if (id === undefined && !(err instanceof RpcError) && !isBridgeError(err)) this.report(err, method);
      if (id === undefined) return json(undefined);
      const error = this.expose(err, method);
      if (streamAllowed && streamsItsErrors(method, call, error)) {
        return { kind: 'stream-error', body: failure(replyId, error, call) };
      }
      return json(failure(replyId, error, call));
    }
  }

  private route(method: string, call: RpcCall): MethodHandler {
    const own = lookup(call.version === '1.0' ? this.v1 : this.v03, method);
    const handler = own ?? lookup(this.bridge, method);
    if (handler) return handler;
    if (call.version === '0.3' && lookup(this.v1, method)) {
      throw new RpcError(-32009, `${method} is an A2A 1.0 method: send the HTTP header "A2A-Version: 1.0"`);
    }
    if (call.version === '1.0' && lookup(this.v03, method)) {
      throw new RpcError(
        -32601,
        `${method} is an A2A 0.3 method; with "A2A-Version: 1.0" use the 1.0 names (SendMessage, GetTask, ...)`,
      );
    }
    throw new RpcError(-32601, `unknown method "${method}"`);
  }

  private expose(err: unknown, method: string): RpcError {
    if (err instanceof RpcError) return err;
    if (isBridgeError(err)) return new RpcError(REASON_CODES[err.reason], err.message, err.data);
    const correlationId = this.report(err, method);
    return new RpcError(-32603, `internal error (correlation id ${correlationId}); see the bridge log`, {
      correlationId,
    });
  }

  private report(err: unknown, method: string): string {
    const correlationId = crypto.randomUUID();
    this.log.error({ correlationId, method, err }, 'JSON-RPC method failed');
    return correlationId;
  }
}

export function failure(id: Id, err: RpcError, call: Pick<RpcCall, 'version'>): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: errorBody(err, call.version) };
}

/**
 * v0.3 `tasks/resubscribe` always answers as a stream, its errors too (task not found, nothing left to
 * subscribe to) — what v0.3 clients of the reference SDK read: @a2a-js/sdk 1.3.0
 * dist/server/express/index.js `jsonRpcHandler` (`alwaysStreamSse` for tasks/resubscribe writes SSE
 * headers first and a stream error as `event: error`). Bad params are still a plain error there, as here.
 */
function streamsItsErrors(method: string, call: Pick<RpcCall, 'version'>, error: RpcError): boolean {
  return call.version === '0.3' && method === 'tasks/resubscribe' && error.code !== -32602;
}

/** Own members only: a method named "constructor" or "toString" must not reach Object.prototype. */
function lookup(table: Record<string, MethodHandler>, method: string): MethodHandler | undefined {
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

/** The reply's JSON text; a result that is JSON text already (JsonText) goes in as it is. */
function replyJson(reply: JsonRpcResponse): string {
  if (!('result' in reply) || !(reply.result instanceof JsonText)) return JSON.stringify(reply);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(reply.id)},"result":${reply.result.text}}`;
}

function json(body: JsonRpcResponse | JsonRpcResponse[] | undefined): RpcOutcome {
  return { kind: 'json', body };
}

/** A request's own id, when it has a valid one (a string or a number); else null. */
export function idOf(raw: unknown): Id {
  if (raw && typeof raw === 'object' && 'id' in raw) {
    const id = (raw as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
