/**
 * `send_task` as an MCP task where the client asks for one (a task-augmented `tools/call`, MCP 2025-11-25
 * basic/utilities/tasks): the bridge starts the task without waiting (`message/send`, non-blocking) and the
 * client gets its handle at once, the contactor task id; tasks/get, tasks/result and tasks/cancel then read the
 * bridge (bridge-task-store.ts). A plain call still waits, bounded, with progress and elicitation (tools.ts).
 *
 * The SDK's McpServer offers task tools only with its own polling for plain calls
 * (@modelcontextprotocol/sdk server/mcp.js `handleAutomaticTaskPolling`: no bound, no progress), so this file
 * wraps the server's own `tools/call` and `tools/list` handlers instead (`Protocol._requestHandlers`, the map
 * `setRequestHandler` fills): a task-augmented send_task is answered here, everything else as before.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mcpTaskOf } from './bridge-task-store.js';
import type { RpcSource, ToolSettings } from './tools.js';

type Handler = (request: { method: string; params?: Record<string, unknown> }, extra: unknown) => Promise<unknown>;

export function offerSendTaskAsTask(server: McpServer, rpcOf: RpcSource, settings: ToolSettings): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const call = handlers.get('tools/call');
  const list = handlers.get('tools/list');
  if (!call || !list) throw new Error('register the tools before offering MCP tasks');
  const Args = z.object({
    agent: z.string().min(1),
    brief: z.string().min(1).max(settings.maxBriefChars, `the brief is over ${settings.maxBriefChars} characters`),
    contextId: z.string().optional(),
  });
  handlers.set('tools/call', async (request, extra) => {
    if (request.params?.name !== 'send_task' || request.params.task === undefined) return call(request, extra);
    const args = Args.safeParse(request.params.arguments ?? {});
    if (!args.success)
      throw new McpError(ErrorCode.InvalidParams, args.error.issues[0]?.message ?? 'invalid arguments');
    const rpc = await rpcOf();
    const started = await rpc.call('message/send', {
      agent: args.data.agent,
      text: args.data.brief,
      messageId: randomUUID(),
      ...(args.data.contextId ? { contextId: args.data.contextId } : {}),
      configuration: { blocking: false },
    });
    return { task: mcpTaskOf(started) };
  });
  handlers.set('tools/list', async (request, extra) => {
    const listed = (await list(request, extra)) as { tools: { name: string; execution?: unknown }[] };
    for (const tool of listed.tools) if (tool.name === 'send_task') tool.execution = { taskSupport: 'optional' };
    return listed;
  });
}
