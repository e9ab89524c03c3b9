/**
 * A delegated task's question put to the MCP client's user, where the client offers elicitation
 * (MCP 2025-06-18, client/elicitation): the options as an enum, the answer returned for the caller to send
 * back through the bridge. A client without elicitation, or a user who declines, leaves the question to
 * the model (answer_question).
 *
 * While the question is out, the task is watched: when it stops waiting without this answer (the person
 * answered in the approval window, it was cancelled, the question expired) the elicitation is withdrawn
 * (the SDK sends `notifications/cancelled`) and the caller follows the task on. A client that never answers
 * (an agent's MCP client with nobody to show the form to) is withdrawn from at the end of the tool's wait,
 * not held to the SDK's 60 s request default.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { BridgeRpc } from './bridge-rpc.js';
import { taskResult, type TaskResult } from './task-view.js';

/** The client user's answer, or the task went on without one; undefined: the question is the model's. */
export type Asked = { answer: string } | { movedOn: true } | undefined;

export async function askThroughElicitation(
  server: McpServer,
  rpc: BridgeRpc,
  task: TaskResult,
  /** `requestId`: the tool call's, so the question and its withdrawal travel with it (its SSE stream at /mcp). */
  opts: { signal: AbortSignal; waitMs: number; requestId: RequestId },
): Promise<Asked> {
  if (!task.question || !server.server.getClientCapabilities()?.elicitation) return undefined;
  const withdraw = new AbortController();
  const stop = (): void => withdraw.abort();
  opts.signal.addEventListener('abort', stop, { once: true });
  let movedOn = false;
  const watching = untilMovedOn(rpc, task, withdraw.signal).then((moved) => {
    movedOn = moved;
    if (moved) withdraw.abort();
  });
  try {
    const answer = await elicit(server, task, {
      signal: withdraw.signal,
      timeout: opts.waitMs,
      relatedRequestId: opts.requestId,
    });
    if (movedOn) return { movedOn: true };
    return answer === undefined ? undefined : { answer };
  } finally {
    withdraw.abort();
    opts.signal.removeEventListener('abort', stop);
    await watching;
  }
}

/** How often the task is read while its question is out: a stream of it ends at input-required (A2A). */
const WATCH_EVERY_MS = 1000;

/** True once the task no longer waits on this question; false when `signal` ends the watch first. */
async function untilMovedOn(rpc: BridgeRpc, task: TaskResult, signal: AbortSignal): Promise<boolean> {
  const asked = JSON.stringify(task.question);
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, WATCH_EVERY_MS);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
    if (signal.aborted) return false;
    try {
      const now = taskResult(await rpc.call('tasks/get', { id: task.taskId }, signal));
      if (JSON.stringify(now.question) !== asked) return true;
    } catch {
      // A read that failed (a bridge restarting) is tried again at the next beat.
    }
  }
  return false;
}

async function elicit(server: McpServer, task: TaskResult, options: RequestOptions): Promise<string | undefined> {
  const question = task.question!;
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
      options,
    );
    const answer = reply.action === 'accept' ? reply.content?.answer : undefined;
    return typeof answer === 'string' ? answer : undefined;
  } catch {
    return undefined;
  }
}
