/** MCP clients of the real SDK against a test bridge: `contactor mcp` on stdio, and `/mcp` over HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { bridgeEnv, CLI } from '../cli/run-cli.js';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

type Capabilities = ConstructorParameters<typeof Client>[1];

/**
 * The SDK's Client, whose every request waits as long as the test may (its own default ends a request after
 * 60 s, which a loaded machine reaches before the test's budget: tests/helpers/timeouts.ts).
 */
export function testClient(name: string, capabilities?: Capabilities): Client {
  const client = new Client({ name, version: '1.0.0' }, capabilities);
  const request = client.request.bind(client);
  client.request = ((req, schema, options) =>
    request(req, schema, { timeout: TEST_TIMEOUT_MS, ...options })) as typeof client.request;
  return client;
}

/** `contactor mcp` (the built CLI) as a child process, the way `claude mcp add contactor -- contactor mcp` runs it. */
export async function stdioClient(
  bridge: TestBridge,
  name: string,
  opts: { args?: string[]; env?: Record<string, string | undefined>; capabilities?: Capabilities } = {},
): Promise<Connected> {
  const client = testClient(name, opts.capabilities);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...(opts.args ?? [])],
    env: bridgeEnv(bridge, opts.env ?? {}),
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** The bridge's `/mcp` with a bearer token. */
export async function httpClient(
  bridge: TestBridge,
  name: string,
  token: string,
  capabilities?: Capabilities,
): Promise<Connected> {
  const client = testClient(name, capabilities);
  const transport = new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** A tool result's parts as a test reads them. */
export interface ToolReply {
  isError?: boolean;
  text: string;
  structured: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  opts: { onprogress?: (p: { progress: number; message?: string }) => void } = {},
): Promise<ToolReply> {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    ...(opts.onprogress ? { onprogress: opts.onprogress } : {}),
  });
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return {
    ...(result.isError ? { isError: true } : {}),
    text: content.map((c) => c.text ?? '').join('\n'),
    structured: (result.structuredContent ?? {}) as Record<string, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}
