import type { Dispatcher } from '../runtime/dispatcher.js';

export type ProtocolVersion = '0.3' | '1.0';

/** Who is calling and how: decided by the HTTP (or stdio) adapter before dispatch. */
export interface RpcCall {
  version: ProtocolVersion;
  /** The agent named by the endpoint (`/agents/<name>`), if any. */
  agentFromPath?: string;
  /** A resuming SSE client's Last-Event-ID: the last event seq it saw. */
  resumeAfter?: number;
}

/** A streaming result: the adapter calls it once the response has started; it returns a stopper. */
export type StreamStarter = (emit: (result: unknown, seq: number) => void, end: () => void) => () => void;

export class StreamReply {
  constructor(readonly start: StreamStarter) {}
}

export type MethodHandler = (params: unknown, call: RpcCall) => Promise<unknown> | unknown;

export interface MethodContext {
  dispatcher: Dispatcher;
  /** The agent cards, built by the server (they need the bridge's URL). */
  cards: {
    agentCard(name: string): unknown;
    listAgents(): unknown[];
  };
}
