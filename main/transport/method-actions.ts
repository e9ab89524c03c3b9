/**
 * The authority action (domain/authority.ts) of every JSON-RPC method the bridge serves, in both
 * protocol versions: the endpoint (jsonrpc.ts) asks the table about it before the method runs, and refuses
 * to start when a method table holds a method without a row here, so nothing is served around the table
 * (SECURITY.md#who-may-do-what). Actions decided on a task's parties (`person or creator`) are asked again
 * by the method, with the task in hand.
 */
import type { Action } from '../domain/authority.js';

export const METHOD_ACTIONS = {
  // methods-bridge.ts
  'tasks/answer': 'answer a question',
  'config/status': 'read the config',
  'config/reload': 'reload the config',
  'tasks/list': 'read tasks',
  'pending/list': 'list open questions',
  'activity/snapshot': 'follow every task',
  'activity/task': 'follow every task',
  'agents/list': 'discover agents',
  'agent/discover': 'discover agents',
  'agents/card': 'discover agents',
  // methods-orchestrate.ts
  'agents/orchestrate': 'send a task',
  // methods-v03.ts (and its `tasks/send` alias, jsonrpc.ts)
  'message/send': 'send a task',
  'tasks/send': 'send a task',
  'message/stream': 'send a task',
  'tasks/get': 'read tasks',
  'tasks/resubscribe': 'read tasks',
  'tasks/cancel': 'cancel a task',
  // A push configuration would deliver a task's updates elsewhere: reading the task (none is supported).
  'tasks/pushNotificationConfig/set': 'read tasks',
  'tasks/pushNotificationConfig/get': 'read tasks',
  'tasks/pushNotificationConfig/list': 'read tasks',
  'tasks/pushNotificationConfig/delete': 'read tasks',
  'agent/getAuthenticatedExtendedCard': 'discover agents',
  // methods-v1.ts
  SendMessage: 'send a task',
  SendStreamingMessage: 'send a task',
  GetTask: 'read tasks',
  ListTasks: 'read tasks',
  SubscribeToTask: 'read tasks',
  CancelTask: 'cancel a task',
  CreateTaskPushNotificationConfig: 'read tasks',
  GetTaskPushNotificationConfig: 'read tasks',
  ListTaskPushNotificationConfigs: 'read tasks',
  DeleteTaskPushNotificationConfig: 'read tasks',
  GetExtendedAgentCard: 'discover agents',
} as const satisfies Record<string, Action>;

/** The action of each method of `tables`; throws naming every method that has none. */
export function methodActions(...tables: Record<string, unknown>[]): Record<string, Action> {
  const missing = tables.flatMap((table) => Object.keys(table)).filter((m) => !Object.hasOwn(METHOD_ACTIONS, m));
  if (missing.length > 0) {
    throw new Error(
      `JSON-RPC methods without an authority action: ${missing.join(', ')}; give each its row in main/transport/method-actions.ts`,
    );
  }
  return METHOD_ACTIONS;
}
