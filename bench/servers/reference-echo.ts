/**
 * The reference A2A server: the official @a2a-js/sdk request handler with its default in-memory store
 * and an echo executor that walks the same lifecycle as contactor's echo task (task → working →
 * artifact → completed). Served on node:http the way the SDK's express `jsonRpcHandler` does it
 * (express is not installed): JSON body, the v0.3 legacy transport for requests without
 * `A2A-Version`, the v1.0 transport otherwise. Skipping express makes the reference faster, never
 * slower, so the ratio against it is conservative.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  validateVersion,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { Role, TaskState, type AgentCard } from '@a2a-js/sdk';

const card = {
  name: 'echo',
  description: 'echoes the text it receives',
  version: '1.0.0',
  supportedInterfaces: [
    { url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
  ],
  provider: undefined,
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
} as unknown as AgentCard;

const textPart = (text: string) => ({
  content: { $case: 'text' as const, value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });

const echo: AgentExecutor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-reply`,
          name: 'reply',
          description: '',
          parts: [textPart(`echo: ${text}`)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: status(TaskState.TASK_STATE_COMPLETED),
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  async cancelTask() {},
};

void Role;
const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), echo);
const v1 = new JsonRpcTransportHandler(handler);
const legacy = new LegacyJsonRpcTransportHandler(handler);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const requestedVersion = (req.headers['a2a-version'] as string | undefined) || undefined;
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new UnauthenticatedUser(),
        headers: req.headers,
        requestedVersion,
      } as never);
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      const transport = (requestedVersion ?? '0.3') === '0.3' ? legacy : v1;
      const reply = await transport.handle(body, context);
      const out = JSON.stringify(reply);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
