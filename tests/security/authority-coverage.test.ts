/**
 * Nothing is served around the authority table (main/domain/authority.ts, SECURITY.md "Who may do
 * what"): every JSON-RPC method the endpoint serves, in both protocol versions, and every HTTP route has
 * its action, written out by hand below from SECURITY.md's table (never read from the code under test). A
 * method or route added without its row fails here, and the endpoint refuses to start with it; the
 * endpoint asks the table before any method runs, so a person-only method is refused to an agent's token
 * even where the method itself would have failed for another reason.
 */
import { describe, expect, it } from 'vitest';
import type { Action, Identity } from '../../main/domain/authority.js';
import type { Dispatcher } from '../../main/runtime/dispatcher.js';
import { HTTP_ROUTES, servedRoutes } from '../../main/transport/http.js';
import type { HttpOptions } from '../../main/transport/http-options.js';
import { JsonRpcEndpoint } from '../../main/transport/jsonrpc.js';
import { METHOD_ACTIONS, methodActions } from '../../main/transport/method-actions.js';
import type { MethodContext, RpcCall } from '../../main/transport/rpc-types.js';

/** SECURITY.md "Who may do what", method by method (the push configurations: reading the task). */
const METHODS: Record<string, Action> = {
  'tasks/answer': 'answer a question',
  'tasks/cancel': 'cancel a task',
  CancelTask: 'cancel a task',
  'pending/list': 'list open questions',
  'config/reload': 'reload the config',
  'config/status': 'read the config',
  'activity/snapshot': 'follow every task',
  'activity/task': 'follow every task',
  'message/send': 'send a task',
  'tasks/send': 'send a task',
  'message/stream': 'send a task',
  SendMessage: 'send a task',
  SendStreamingMessage: 'send a task',
  'agents/orchestrate': 'send a task',
  'tasks/get': 'read tasks',
  'tasks/list': 'read tasks',
  'tasks/resubscribe': 'read tasks',
  GetTask: 'read tasks',
  ListTasks: 'read tasks',
  SubscribeToTask: 'read tasks',
  'tasks/pushNotificationConfig/set': 'read tasks',
  'tasks/pushNotificationConfig/get': 'read tasks',
  'tasks/pushNotificationConfig/list': 'read tasks',
  'tasks/pushNotificationConfig/delete': 'read tasks',
  CreateTaskPushNotificationConfig: 'read tasks',
  GetTaskPushNotificationConfig: 'read tasks',
  ListTaskPushNotificationConfigs: 'read tasks',
  DeleteTaskPushNotificationConfig: 'read tasks',
  'agents/list': 'discover agents',
  'agent/discover': 'discover agents',
  'agents/card': 'discover agents',
  'agent/getAuthenticatedExtendedCard': 'discover agents',
  GetExtendedAgentCard: 'discover agents',
};

/** Every route but the JSON-RPC POSTs: its action once the token is checked, or `no token` (cards, health). */
const ROUTES: Record<string, Action | 'no token'> = {
  'GET /health': 'no token',
  'GET /.well-known/agent-card.json': 'no token',
  'GET /.well-known/agent.json': 'no token',
  'GET /agents/<name>/.well-known/agent-card.json': 'no token',
  'GET /events': 'follow every task',
  'POST /shutdown': 'stop the bridge',
  'POST /mcp': 'call MCP tools',
  'GET /mcp': 'call MCP tools',
};

/** An endpoint whose methods must never run: the table's refusal comes first, or the test fails loudly. */
function endpoint(): JsonRpcEndpoint {
  const untouchable = new Proxy({} as Dispatcher, {
    get: (_target, key) => {
      throw new Error(`the dispatcher was reached (${String(key)}) before the authority table refused`);
    },
  });
  const ctx: MethodContext = { dispatcher: untouchable, cards: { agentCard: () => ({}), listAgents: () => [] } };
  return new JsonRpcEndpoint(ctx, { error: () => undefined });
}

describe('every surface asks the authority table', () => {
  it('every JSON-RPC method of both protocol versions has the action SECURITY.md gives it', () => {
    expect(endpoint().methodNames().sort()).toEqual(Object.keys(METHODS).sort());
    expect(METHOD_ACTIONS).toEqual(METHODS);
  });

  it('a method table with a method that has no action is refused, naming it', () => {
    const served = { 'tasks/get': () => 1, 'tasks/export': () => 2, ExportTask: () => 3 };
    expect(() => methodActions(served)).toThrow(
      'JSON-RPC methods without an authority action: tasks/export, ExportTask; give each its row in main/transport/method-actions.ts',
    );
    // Own rows only: a method named like an Object.prototype member has no action either.
    expect(() => methodActions({ constructor: () => 0 })).toThrow(/without an authority action: constructor;/);
  });

  it('every HTTP route is served under its name, with the action SECURITY.md gives it', () => {
    const opts = { onShutdownRequested: () => undefined } as unknown as HttpOptions;
    const served = servedRoutes(opts).map(({ name, methods }) => `${methods.join(',')} ${String(name)}`);
    // Each name says the method it is served at.
    expect(served.sort()).toEqual(
      Object.keys(ROUTES)
        .map((route) => `${route.split(' ')[0]} ${route}`)
        .sort(),
    );
    expect(HTTP_ROUTES).toEqual(ROUTES);
  });

  const agent: Identity = { kind: 'agent', agent: 'worker' };
  const personOnly = Object.entries(METHODS)
    .filter(([, action]) => ['read the config', 'reload the config', 'follow every task'].includes(action))
    .map(([method]) => method);

  it.each(personOnly)(
    '%s is refused to an agent before the method runs, and the refusal is reported',
    async (method) => {
      const refused: string[] = [];
      for (const version of ['0.3', '1.0'] as const) {
        const call: RpcCall = { version, identity: agent, onNotPermitted: (m) => refused.push(m) };
        const outcome = await endpoint().handle(
          { json: true, value: { jsonrpc: '2.0', id: 7, method, params: { taskId: 't-1' } } },
          call,
        );
        expect(outcome.kind).toBe('json');
        const body = JSON.parse((outcome as { text: string }).text) as { error: { code: number; message: string } };
        expect(body.error.code).toBe(-32066);
        expect(body.error.message).toMatch(/^agent worker may not .+: only the person may/);
      }
      expect(refused).toEqual([method, method]);
    },
  );
});
