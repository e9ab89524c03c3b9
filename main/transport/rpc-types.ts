import type { Identity } from '../domain/authority.js';
import type { Activity } from '../runtime/activity.js';
import type { Dispatcher } from '../runtime/dispatcher.js';
import type { RpcError } from './rpc-errors.js';

export type ProtocolVersion = '0.3' | '1.0';

/** Who is calling and how: decided by the HTTP (or stdio) adapter before dispatch. */
export interface RpcCall {
  version: ProtocolVersion;
  /** The agent named by the endpoint (`/agents/<name>`), if any. */
  agentFromPath?: string;
  /**
   * The agent whose derived token authenticated this call (caller-tokens.ts), when it came from inside
   * an agent the bridge started. The loop guards use it; no request parameter can change it.
   */
  callerAgent?: string;
  /** Who is calling, as the token proves it: what the authority table (domain/authority.ts) is asked about. */
  identity: Identity;
  /** Told when the authority table refused a method to this caller (the audit log records it). */
  onNotPermitted?: (method: string) => void;
  /** A resuming SSE client's Last-Event-ID: the last event seq it saw. */
  resumeAfter?: number;
  /**
   * Set when `A2A-Version` names a version the bridge does not speak: every call fails with it (-32009)
   * once its id is known, as JSON-RPC wants the reply to echo the request id (v1 §3.6.2).
   */
  versionError?: RpcError;
}

/**
 * A request body as the adapter parsed it, once, for both the rate limiter and dispatch: `json: false`
 * when it is not valid JSON (answered -32700 by the endpoint).
 */
export type ParsedBody = { json: true; value: unknown } | { json: false };

export function parseBody(text: string): ParsedBody {
  try {
    return { json: true, value: JSON.parse(text) as unknown };
  } catch {
    return { json: false };
  }
}

/** A streaming result: the adapter calls it once the response has started; it returns a stopper. */
export type StreamStarter = (emit: (result: unknown, seq: number) => void, end: () => void) => () => void;

export class StreamReply {
  constructor(readonly start: StreamStarter) {}
}

/**
 * A result already serialized: the JSON text of the stored task (LiveTask.storedJson), which the reply
 * carries as it is instead of serializing the task a second time.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

export type MethodHandler = (params: unknown, call: RpcCall) => Promise<unknown> | unknown;

export interface MethodContext {
  dispatcher: Dispatcher;
  /** The agent cards, built by the server (they need the bridge's URL). */
  cards: {
    agentCard(name: string): unknown;
    listAgents(): unknown[];
  };
  /** The config in use and its reload (absent in tests that build an endpoint without one). */
  config?: ConfigControl;
  /** `activity/snapshot` and `activity/task` (absent in tests that build an endpoint without it). */
  activity?: Activity;
}

export interface ConfigControl {
  status(): unknown;
  reload(): unknown;
}
