/**
 * The one way the MCP front door reaches the bridge: the bridge's own JSON-RPC methods, called as one
 * caller. Every tool is a translation into these calls, so each one passes the authority table
 * (main/transport/method-actions.ts) and the delegation chain (main/runtime/delegation.ts) exactly as any
 * client's call does (docs/architecture.md#choke-points). Two implementations: over HTTP with the caller's
 * token (`contactor mcp`, main/cli/mcp/http-rpc.ts) and in-process with the identity the gate found
 * (`/mcp`, in-process-rpc.ts).
 */

export interface BridgeRpc {
  /** One call; resolves with its result, rejects with a BridgeRpcError (or the transport's own failure). */
  call(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
  /**
   * A streaming method (`message/stream`): `onResult` gets each event's result in order; resolves when the
   * bridge ends the stream, rejects like `call`. An aborted `signal` stops reading, never the task.
   */
  stream(method: string, params: unknown, onResult: (result: unknown) => void, signal?: AbortSignal): Promise<void>;
}

/** A JSON-RPC error the bridge answered: its code and message are safe to show (docs/contract.md#error-codes). */
export class BridgeRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
