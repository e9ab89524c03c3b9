/**
 * A delegated task's question put to the MCP client's user, where the client offers elicitation
 * (MCP 2025-06-18, client/elicitation): the options as an enum, the answer returned for the caller to send
 * back through the bridge. A client without elicitation, or a user who declines, leaves the question to
 * the model (answer_question).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TaskResult } from './task-view.js';

export async function askThroughElicitation(
  server: McpServer,
  task: TaskResult,
  signal: AbortSignal,
): Promise<string | undefined> {
  const question = task.question;
  if (!question || !server.server.getClientCapabilities()?.elicitation) return undefined;
  try {
    const reply = await server.server.elicitInput(
      {
        message: `${task.agent ?? 'An agent'} asks (task ${task.taskId}): ${question.text}`,
        requestedSchema: {
          type: 'object',
          properties: {
            answer: {
              type: 'string',
              title: question.kind === 'permission' ? 'Permission' : 'Choice',
              enum: question.options.map((o) => o.id),
              enumNames: question.options.map((o) => o.label),
            },
          },
          required: ['answer'],
        },
      },
      { signal },
    );
    const answer = reply.action === 'accept' ? reply.content?.answer : undefined;
    return typeof answer === 'string' ? answer : undefined;
  } catch {
    return undefined;
  }
}
