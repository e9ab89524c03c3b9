/**
 * What the ACP front door needs of the running bridge: its JSON-RPC and its task streams, as any client
 * uses them (docs/contract.md#json-rpc-methods, docs/contract.md#streaming). The CLI hands one in, with the
 * install token as the person's CLI has it; the bridge decides what that token may do, as for every client.
 */
import type { z } from 'zod';
import type { StreamResult } from '../../schema/cli.js';

export interface LinkedEvent {
  /** The task's event sequence number: where a resubscribe resumes. */
  seq?: number;
  result: StreamResult;
}

export interface BridgeLink {
  call<S extends z.ZodType>(method: string, params: unknown, schema: S): Promise<z.infer<S>>;
  stream(method: string, params: unknown, opts?: { lastEventId?: number }): AsyncIterable<LinkedEvent>;
}

/**
 * A bridge call that failed, in the words the CLI prints for it (`message/stream failed: no agent named …`,
 * `no bridge running at …`), with the bridge's JSON-RPC code when it gave one.
 */
export class BridgeFailure extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly data?: unknown,
    /** The bridge went away after the stream had started (killed, restarted): worth following again. */
    readonly dropped = false,
  ) {
    super(message);
    this.name = 'BridgeFailure';
  }
}
