/**
 * MCP tasks backed by the bridge's own tasks (MCP 2025-11-25, basic/utilities/tasks): the MCP task id IS the
 * contactor task id, so a client that reconnects, or a bridge that restarted, finds the same task. Nothing is
 * kept here: every read is a `tasks/get` as this caller, a cancel is `tasks/cancel` (the authority table
 * decides both), and the result is built from the stored task when it ends.
 */
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { BridgeRpcError } from './bridge-rpc.js';
import { BridgeTaskSchema, taskResult, taskText } from './task-view.js';
import type { RpcSource } from './tools.js';

/** How often a client should poll (the SDK's tasks/result waits this long between reads too). */
const POLL_MS = 1000;

/** A bridge task state in the MCP task's words (MCP `TaskStatus`). */
const STATUS: Record<string, Task['status']> = {
  submitted: 'working',
  working: 'working',
  'input-required': 'input_required',
  'auth-required': 'input_required',
  completed: 'completed',
  failed: 'failed',
  rejected: 'failed',
  canceled: 'cancelled',
};

export function mcpTaskOf(raw: unknown): Task {
  const task = BridgeTaskSchema.parse(raw);
  const meta = (task.metadata ?? {}) as { createdAt?: unknown };
  const status = task.status as { state: string; timestamp?: unknown };
  const createdAt = typeof meta.createdAt === 'string' ? meta.createdAt : new Date(0).toISOString();
  const view = taskResult(raw);
  return {
    taskId: task.id,
    status: STATUS[status.state] ?? 'working',
    ttl: null,
    createdAt,
    lastUpdatedAt: typeof status.timestamp === 'string' ? status.timestamp : createdAt,
    pollInterval: POLL_MS,
    statusMessage: view.next,
  };
}

export function toolResultOf(raw: unknown): CallToolResult {
  const view = taskResult(raw);
  return {
    content: [{ type: 'text', text: taskText(view) }],
    structuredContent: view,
    isError: view.state !== 'completed',
  };
}

export function createBridgeTaskStore(rpcOf: RpcSource): TaskStore {
  const get = async (taskId: string): Promise<unknown> => (await rpcOf()).call('tasks/get', { id: taskId });
  return {
    createTask() {
      // Tasks are made by the bridge (message/send), never here: task-tools.ts returns the bridge's.
      return Promise.reject(new Error('contactor tasks are created by the bridge'));
    },
    async getTask(taskId) {
      try {
        return mcpTaskOf(await get(taskId));
      } catch (err) {
        if (err instanceof BridgeRpcError && err.code === -32001) return null;
        throw err;
      }
    },
    async storeTaskResult() {
      // The bridge stores the task's outcome itself.
    },
    async getTaskResult(taskId) {
      return toolResultOf(await get(taskId));
    },
    async updateTaskStatus(taskId, status) {
      if (status === 'cancelled') await (await rpcOf()).call('tasks/cancel', { id: taskId });
    },
    async listTasks() {
      const page = (await (await rpcOf()).call('tasks/list', { pageSize: 50 })) as { tasks?: unknown[] };
      return { tasks: (page.tasks ?? []).map(mcpTaskOf) };
    },
  };
}
