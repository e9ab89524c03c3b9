/**
 * `/mcp`: the contactor MCP server over streamable HTTP, inside the bridge. The HTTP edge has already
 * run the request gate (Host, Origin), the token and the route's authority row (main/transport/http.ts
 * `HTTP_ROUTES`) and hands over the identity the token proved; every tool then calls the bridge in-process
 * as that identity (in-process-rpc.ts). A session belongs to the identity that opened it: another token
 * presenting its id finds nothing.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { identityLabel, type Identity } from '../../domain/authority.js';
import type { JsonRpcEndpoint } from '../../transport/jsonrpc.js';
import { BridgeRpcError } from './bridge-rpc.js';
import { createInProcessRpc, type RateCharge } from './in-process-rpc.js';
import { createContactorMcpServer } from './mcp-server.js';
import { externalNameOf, mcpIdentity } from './mcp-identity.js';
import type { ToolSettings } from './tools.js';

export interface McpHttpDoorOptions {
  endpoint: Pick<JsonRpcEndpoint, 'handle'>;
  version: string;
  settings: ToolSettings;
  /** The configured agents' names: the external agent a client acts as is never one of them. */
  agentNames: () => readonly string[];
  maxBodyBytes: number;
  /** Open sessions at most; the oldest is closed to make room. */
  maxSessions?: number;
  /** The bridge's rate limit (rate_limit_per_minute): every in-process call of a tool is charged to its caller. */
  rateLimit?: RateCharge['limit'];
}

interface Session {
  transport: StreamableHTTPServerTransport;
  owner: string;
}

export interface McpHttpDoor {
  /** `bucket`: the caller's rate-limit bucket, which its session's tool calls are charged to. */
  handle(req: IncomingMessage, res: ServerResponse, who: Identity, bucket: string): Promise<void>;
  close(): Promise<void>;
}

export function createMcpHttpDoor(opts: McpHttpDoorOptions): McpHttpDoor {
  const sessions = new Map<string, Session>();
  const maxSessions = opts.maxSessions ?? 64;

  const open = async (who: Identity, bucket: string): Promise<StreamableHTTPServerTransport> => {
    const rate = opts.rateLimit ? { limit: opts.rateLimit, bucket } : undefined;
    const owner = identityLabel(who);
    /** The external agent this session acts as, when its token proves no agent: named once, at its first call. */
    let named: string | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        // Map order is insertion order: the first entry is the oldest session.
        while (sessions.size >= maxSessions) {
          const [oldest, session] = sessions.entries().next().value as [string, Session];
          sessions.delete(oldest);
          void session.transport.close();
        }
        sessions.set(id, { transport, owner });
      },
    });
    const server = createContactorMcpServer({
      version: opts.version,
      settings: opts.settings,
      rpc: async () => {
        named ??= externalNameOf(server.server.getClientVersion()?.name, opts.agentNames());
        const identity = mcpIdentity(who, named, opts.agentNames());
        return createInProcessRpc(opts.endpoint, identity, rate);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  return {
    async handle(req, res, who, bucket) {
      let body: unknown;
      if (req.method === 'POST') {
        const read = await readJson(req, opts.maxBodyBytes);
        if (read.kind !== 'ok') return refuse(res, read.status, read.code, read.message);
        body = read.value;
      }
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const session = sessions.get(id);
        if (!session || session.owner !== identityLabel(who))
          return refuse(res, 404, -32001, 'session not found: initialize a new MCP session');
        return session.transport.handleRequest(req, res, body);
      }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        const transport = await open(who, bucket);
        return transport.handleRequest(req, res, body);
      }
      refuse(res, 400, -32000, 'no MCP session: send initialize first (without an Mcp-Session-Id header)');
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.transport.close()));
    },
  };
}

type JsonRead = { kind: 'ok'; value: unknown } | { kind: 'refused'; status: number; code: number; message: string };

/** The POST body as JSON, read up to the bridge's body limit (max_body_bytes), as every JSON-RPC POST is. */
async function readJson(req: IncomingMessage, limit: number): Promise<JsonRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      return {
        kind: 'refused',
        status: 413,
        code: -32600,
        message: `request body over the ${limit}-byte limit (max_body_bytes in config.yaml)`,
      };
    }
    chunks.push(chunk);
  }
  try {
    return { kind: 'ok', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { kind: 'refused', status: 400, code: -32700, message: 'request body is not valid JSON' };
  }
}

function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

export { BridgeRpcError };
