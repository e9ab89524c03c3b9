/**
 * What the HTTP edge is given (built by wiring): shared by the router (http.ts) and the JSON-RPC POST
 * handler (rpc-post.ts), so neither imports the other for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Identity } from '../domain/authority.js';
import type { TaskEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { FeedReplay } from '../runtime/event-feed.js';
import type { CallerTokens } from './caller-tokens.js';
import type { JsonRpcEndpoint } from './jsonrpc.js';
import type { CallerRateLimit } from './rate-limit.js';
import type { GatePolicy } from './request-gate.js';

export interface BridgeInfo {
  health(): Record<string, unknown>;
  bridgeCard(): unknown;
  /** undefined when no such agent. */
  agentCard(name: string): unknown;
  /** Whether an agent of this name is configured (cheap: every POST to /agents/<name> asks). */
  hasAgent(name: string): boolean;
  /** The configured agents' names, for the error that names them (an unknown agent's URL). */
  agentNames(): readonly string[];
  listenFeed(listener: (event: TaskEvent, task: Task, cursor: string) => void): () => void;
  /** The feed's events after `cursor`, or reset (runtime/event-feed.ts); call `listenFeed` in the same turn. */
  feedSince(cursor: string): FeedReplay;
  /** The cursor of the feed's latest event. */
  feedCursor(): string;
}

export interface HttpOptions {
  endpoint: JsonRpcEndpoint;
  info: BridgeInfo;
  policy: GatePolicy;
  /** When set, JSON-RPC and the event feed need one of these bearer tokens; it names the caller. */
  tokens?: CallerTokens;
  maxBodyBytes: number;
  /** Checked on every JSON-RPC POST after the token, before dispatch, and on every guarded route's request. */
  rateLimit?: CallerRateLimit;
  /** Told about every request refused before dispatch (the audit log). Must not throw. */
  onRefused?: (details: RefusedRequest) => void;
  /**
   * When set, an authorized `POST /shutdown` asks the host to stop the bridge cleanly (`contactor down`):
   * Windows has no SIGTERM, and Node's process.kill there ends a process abruptly.
   */
  onShutdownRequested?: () => void;
  /**
   * Told when a connection carried a request with a valid token, and whose (connection-guard.ts); false
   * when that caller holds its share of connections already: the request is refused (503) and closed.
   */
  onAuthenticated?: (socket: Socket, who: Identity) => boolean;
  /**
   * `/mcp` (POST and GET), once the gate, the token and the route's authority row let the request in: the
   * MCP front door answers it as `who` (main/front-doors/mcp/http-door.ts), charging its tools' calls to
   * `bucket`, the caller's rate-limit bucket. Absent: 404.
   */
  mcp?: (req: IncomingMessage, res: ServerResponse, who: Identity, bucket: string) => Promise<void>;
}

export interface RefusedRequest {
  reason: string;
  status: number;
  method: string;
  path: string;
  remote: string;
  host?: string;
  origin?: string;
  caller?: string;
}
