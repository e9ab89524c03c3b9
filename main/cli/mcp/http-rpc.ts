/**
 * BridgeRpc over HTTP for `contactor mcp` (main/front-doors/mcp/bridge-rpc.ts): the bridge's JSON-RPC with
 * this caller's token, through the CLI's own client, so a bridge that is down, a refused token and a
 * JSON-RPC error each become an error the tool can show.
 */
import { BridgeRpcError, type BridgeRpc } from '../../front-doors/mcp/bridge-rpc.js';
import { BridgeClient } from '../bridge-client/bridge-client.js';
import type { BridgeAddress } from '../bridge-client/locate.js';
import { CliError, EXIT } from '../exit-codes.js';
import { RpcReplySchema } from '../../schema/cli.js';

/** Any result: the tools parse what they read (main/front-doors/mcp/task-view.ts). */
const AnyResult = RpcReplySchema.shape.result;

export function createHttpRpc(address: BridgeAddress, who: string): BridgeRpc {
  const client = new BridgeClient(address);
  const translate = (err: unknown): unknown => {
    if (!(err instanceof CliError)) return err;
    if (err.exitCode === EXIT.unauthorized) {
      return new BridgeRpcError(
        -32066,
        `the bridge refused the token of ${who}; if that is the name of an agent the bridge runs, start contactor mcp with --as <another-name>`,
      );
    }
    // The CLI's words for a JSON-RPC error end in its code: the tool adds its own.
    if (err.rpc) return new BridgeRpcError(err.rpc.code, err.message.replace(/ \[-?\d+\]$/, ''), err.rpc.data);
    return err;
  };
  return {
    async call(method, params, signal) {
      try {
        return await client.call(method, params, AnyResult, signal);
      } catch (err) {
        throw translate(err);
      }
    },
    async stream(method, params, onResult, signal) {
      try {
        for await (const event of client.stream(method, params, signal ? { signal } : {})) onResult(event.result);
      } catch (err) {
        throw translate(err);
      }
    },
  };
}
