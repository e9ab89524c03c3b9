/**
 * `contactor mcp`'s transport: the MCP server on this process's stdin and stdout (MCP stdio transport), until
 * the client closes stdin or the connection.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export async function serveOnStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    // The SDK's stdio transport does not watch for the end of stdin: a client that closes it is gone.
    process.stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}
