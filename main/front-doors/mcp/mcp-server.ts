/**
 * The contactor MCP server (docs/contract.md#mcp-tools): one McpServer per connection, its tools
 * answering through the BridgeRpc it is given. The same server runs on stdio (`contactor mcp`) and at the
 * bridge's `/mcp` (http-door.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createBridgeTaskStore } from './bridge-task-store.js';
import { offerSendTaskAsTask } from './task-tools.js';
import { registerTools, type RpcSource, type ToolSettings } from './tools.js';

export const MCP_INSTRUCTIONS =
  'contactor runs the coding agents on this machine. list_agents shows them; send_task gives one a task and returns its reply (or its question: answer_question); get_task follows a task that is still running. You act as an agent: you see, answer and cancel only the tasks you sent.';

export function createContactorMcpServer(opts: { version: string; rpc: RpcSource; settings: ToolSettings }): McpServer {
  const server = new McpServer(
    { name: 'contactor', version: opts.version },
    {
      capabilities: { tools: {}, logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      instructions: MCP_INSTRUCTIONS,
      taskStore: createBridgeTaskStore(opts.rpc),
    },
  );
  registerTools(server, opts.rpc, opts.settings);
  offerSendTaskAsTask(server, opts.rpc, opts.settings);
  return server;
}
