/**
 * The six tools of `contactor mcp` and `/mcp` (docs/contract.md#mcp-tools), each a translation into the
 * bridge's own JSON-RPC methods through a BridgeRpc (bridge-rpc.ts): nothing here decides who may do what,
 * which chain a task joins or what an agent may see; the bridge does, for this caller, as for any other.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BridgeRpcError, type BridgeRpc } from './bridge-rpc.js';
import { askThroughElicitation } from './elicitation.js';
import { follow, type Progress } from './send-flow.js';
import { taskResult, taskText, TaskResultShape, type TaskResult } from './task-view.js';

export interface ToolSettings {
  /** How long send_task (and get_task with wait) follows a task before it returns the id and how to follow it. */
  waitMs: number;
  /** The longest brief, in characters (the bridge's body limit applies as well). */
  maxBriefChars: number;
}

export const DEFAULT_TOOL_SETTINGS: ToolSettings = { waitMs: 120_000, maxBriefChars: 1_000_000 };

/** The bridge as this caller, made on first use (`contactor mcp` may start the bridge then). */
export type RpcSource = () => Promise<BridgeRpc>;

const AgentSchema = z.object({
  name: z.string(),
  goodAt: z.string().describe('what the agent is for, from its description and backend'),
  canAsk: z.boolean().describe('whether it may stop to ask a question or a permission'),
  streams: z.boolean().describe('whether it streams its reply while it works'),
  multiTurn: z.boolean().describe('whether a follow-up with contextId continues the same conversation'),
  busy: z.boolean().describe('whether it is running or has tasks queued now'),
  waiting: z.number().describe('tasks queued for it'),
});

const ListedAgentSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  backend: z.string().optional(),
  traits: z.looseObject({
    streaming: z.boolean().optional(),
    inputRequired: z.boolean().optional(),
    multiTurn: z.boolean().optional(),
    limits: z.string().optional(),
  }),
  queue: z.looseObject({ waiting: z.number(), running: z.number() }).optional(),
});

const FileSchema = z.object({
  name: z.string().min(1).max(255).describe('the file name the agent sees'),
  mimeType: z.string().optional(),
  base64: z.string().describe("the file's bytes, base64"),
});

export function registerTools(server: McpServer, rpcOf: RpcSource, settings: ToolSettings): void {
  const guard =
    <A>(run: (args: A, extra: Extra) => Promise<CallToolResult>) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      try {
        return await run(args, extra);
      } catch (err) {
        return toolError(err);
      }
    };

  server.registerTool(
    'list_agents',
    {
      title: 'List the local agents',
      description:
        "List the coding agents this machine's contactor bridge can run (Codex, Gemini CLI, Claude Code, OpenCode, local models, ...): each one's name, what it is good at, whether it can stop to ask a question, whether it streams, and whether it is busy now. Call it before send_task to choose an agent.",
      inputSchema: {},
      outputSchema: { agents: z.array(AgentSchema) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(async () => {
      const rpc = await rpcOf();
      const listed = z.object({ agents: z.array(ListedAgentSchema) }).parse(await rpc.call('agents/list', {}));
      const agents = listed.agents.map((a) => ({
        name: a.name,
        goodAt: [a.description, a.backend ? `(${a.backend} agent)` : '', a.traits.limits ?? '']
          .filter((s) => s)
          .join(' '),
        canAsk: a.traits.inputRequired === true,
        streams: a.traits.streaming === true,
        multiTurn: a.traits.multiTurn === true,
        busy: (a.queue?.running ?? 0) + (a.queue?.waiting ?? 0) > 0,
        waiting: a.queue?.waiting ?? 0,
      }));
      const text = agents.length
        ? agents
            .map(
              (a) =>
                `- ${a.name}: ${a.goodAt || 'no description'}${a.canAsk ? '; can ask' : ''}${a.busy ? '; busy' : ''}`,
            )
            .join('\n')
        : 'no agents are configured in contactor (config.yaml)';
      return { content: [{ type: 'text', text }], structuredContent: { agents } };
    }),
  );

  server.registerTool(
    'send_task',
    {
      title: 'Delegate a task to a local agent',
      description:
        'Give a task to another coding agent on this machine (see list_agents) and get its reply. The agent works in its own workspace; write the brief as you would for a colleague: the goal, the files, what to return. Waits while the agent works (progress carries its streamed text); if the agent asks a question the result says so with the options (answer with answer_question); if it takes longer than the wait, the result has the taskId to follow with get_task. For a follow-up in the same conversation pass the contextId of the earlier result.',
      inputSchema: {
        agent: z.string().min(1).describe('the agent name, from list_agents'),
        brief: z
          .string()
          .min(1)
          .max(
            settings.maxBriefChars,
            `the brief is over ${settings.maxBriefChars} characters: shorten it, or pass the long part as a file`,
          )
          .describe('what the agent should do'),
        contextId: z.string().optional().describe('continue this conversation (from an earlier result)'),
        files: z.array(FileSchema).max(20).optional().describe('files to attach'),
      },
      outputSchema: TaskResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    guard(
      async (
        args: {
          agent: string;
          brief: string;
          contextId?: string | undefined;
          files?: z.infer<typeof FileSchema>[] | undefined;
        },
        extra,
      ) => {
        const rpc = await rpcOf();
        const params = {
          agent: args.agent,
          text: args.brief,
          messageId: randomUUID(),
          ...(args.contextId ? { contextId: args.contextId } : {}),
          ...(args.files?.length
            ? {
                files: args.files.map((f) => ({
                  name: f.name,
                  bytes: f.base64,
                  ...(f.mimeType ? { mimeType: f.mimeType } : {}),
                })),
              }
            : {}),
        };
        return followTask(server, rpc, { method: 'message/stream', params }, extra, settings);
      },
    ),
  );

  server.registerTool(
    'get_task',
    {
      title: 'Get a delegated task',
      description:
        'The state and reply of a task sent with send_task (by its taskId). With wait: true it waits (bounded) until the task finishes or asks a question.',
      inputSchema: {
        taskId: z.string().min(1),
        wait: z.boolean().optional().describe('wait for the next stop instead of answering at once'),
      },
      outputSchema: TaskResultShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(async (args: { taskId: string; wait?: boolean | undefined }, extra) => {
      const rpc = await rpcOf();
      const now = taskResult(await rpc.call('tasks/get', { id: args.taskId }));
      if (!args.wait || now.done || now.question) return result(now);
      return followTask(
        server,
        rpc,
        { method: 'tasks/resubscribe', params: { id: args.taskId } },
        extra,
        settings,
        args.taskId,
      );
    }),
  );

  server.registerTool(
    'answer_question',
    {
      title: "Answer a delegated task's question",
      description:
        'Answer the question a task you sent is waiting on (its result said state input-required and listed the options): the option id, or free text for a decision. Only tasks you sent can be answered. Returns the task as it goes on; follow it with get_task (wait: true).',
      inputSchema: {
        taskId: z.string().min(1),
        answer: z.string().min(1).describe('an option id from the question, or free text for a decision'),
        freeText: z.boolean().optional().describe('the answer is free text even if it looks like an option'),
      },
      outputSchema: TaskResultShape,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    guard(async (args: { taskId: string; answer: string; freeText?: boolean | undefined }) => {
      const rpc = await rpcOf();
      const answered = await rpc.call('tasks/answer', {
        taskId: args.taskId,
        answer: args.answer,
        ...(args.freeText ? { freeText: true } : {}),
      });
      return result(taskResult(answered));
    }),
  );

  server.registerTool(
    'cancel_task',
    {
      title: 'Cancel a delegated task',
      description: 'Stop a task you sent (by its taskId). Only tasks you sent can be canceled.',
      inputSchema: { taskId: z.string().min(1) },
      outputSchema: TaskResultShape,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    guard(async (args: { taskId: string }) => {
      const rpc = await rpcOf();
      return result(taskResult(await rpc.call('tasks/cancel', { id: args.taskId })));
    }),
  );

  server.registerTool(
    'list_pending',
    {
      title: 'List the questions waiting on your tasks',
      description:
        'The tasks you sent that wait for an answer (a permission or a decision), with their options: answer each with answer_question.',
      inputSchema: {},
      outputSchema: { tasks: z.array(z.object(TaskResultShape)) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(async () => {
      const rpc = await rpcOf();
      const listed = z.object({ tasks: z.array(z.unknown()) }).parse(await rpc.call('pending/list', {}));
      const tasks = listed.tasks.map(taskResult);
      const text = tasks.length ? tasks.map(taskText).join('\n\n') : 'no task of yours waits for an answer';
      return { content: [{ type: 'text', text }], structuredContent: { tasks } };
    }),
  );
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Follows a task for one tool call: progress notifications when the client sent a progressToken; a
 * question put to the client's user through elicitation when it offers that, the answer sent back through
 * the bridge (tasks/answer, as this caller), then followed on.
 */
async function followTask(
  server: McpServer,
  rpc: BridgeRpc,
  first: { method: string; params: unknown },
  extra: Extra,
  settings: ToolSettings,
  knownTaskId?: string,
): Promise<CallToolResult> {
  const progress = progressOf(extra);
  const deadline = Date.now() + settings.waitMs;
  let call = first;
  let taskId = knownTaskId;
  for (;;) {
    const followed = await follow(rpc, call, {
      waitMs: Math.max(0, deadline - Date.now()),
      signal: extra.signal,
      ...(progress ? { progress } : {}),
      onTaskId: (id) => (taskId ??= id),
    }).catch((err: unknown) => {
      // The bridge refuses to resubscribe to a task that already stopped (-32004): it ended between the
      // read before and this call, and the read below has its end.
      if (err instanceof BridgeRpcError && err.code === -32004 && call.method === 'tasks/resubscribe')
        return { taskId, timedOut: false };
      throw err;
    });
    taskId ??= followed.taskId;
    if (taskId === undefined) throw new BridgeRpcError(-32603, 'the bridge named no task for this send; try again');
    const now = taskResult(await rpc.call('tasks/get', { id: taskId }));
    if (now.question && !extra.signal.aborted && Date.now() < deadline) {
      const asked = await askThroughElicitation(server, rpc, now, {
        signal: extra.signal,
        waitMs: Math.max(0, deadline - Date.now()),
        requestId: extra.requestId,
      });
      if (asked !== undefined) {
        if ('answer' in asked) await rpc.call('tasks/answer', { taskId, answer: asked.answer });
        call = { method: 'tasks/resubscribe', params: { id: taskId } };
        continue;
      }
    }
    if (!now.done && !now.question && followed.timedOut) {
      now.next = `still running after the ${Math.round(settings.waitMs / 1000)} s wait; it goes on: call get_task with taskId ${now.taskId} and wait: true, or cancel_task`;
    }
    return result(now);
  }
}

function progressOf(extra: Extra): Progress | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let n = 0;
  return (message) => {
    n += 1;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, message } })
      .catch(() => undefined);
  };
}

function result(task: TaskResult): CallToolResult {
  return { content: [{ type: 'text', text: taskText(task) }], structuredContent: task };
}

/** A failure as a tool error a model can act on: the bridge's words (safe to show) and what to do. */
export function toolError(err: unknown): CallToolResult {
  let text: string;
  if (err instanceof BridgeRpcError) text = `${err.message} [${err.code}]${hintFor(err.code)}`;
  else if (err instanceof z.ZodError)
    text = `the bridge sent an answer this tool does not understand: ${err.issues[0]?.message ?? 'invalid'}`;
  else text = err instanceof Error ? err.message : String(err);
  return { content: [{ type: 'text', text }], isError: true };
}

function hintFor(code: number): string {
  switch (code) {
    case -32060:
      return '; call list_agents for the names';
    case -32001:
      return '; check the taskId (send_task returns it)';
    case -32066:
      return '; you may answer and cancel only the tasks you sent';
    case -32064:
    case -32065:
      return '; the agent or the bridge is busy: wait a little and try again';
    default:
      return '';
  }
}
