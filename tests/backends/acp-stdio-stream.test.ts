/** Writing to an agent whose stdin is gone must never reject: it would be an unhandled rejection. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { agentStdioStream } from '../../main/backends/acp/stdio-stream.js';

describe('agentStdioStream', () => {
  it('drops messages to an agent that has exited instead of rejecting', async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(0)'], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.on('error', () => undefined);
    await once(child, 'exit');
    child.stdin.end();
    const stream = agentStdioStream(child.stdin, child.stdout, 1024 * 1024, {
      onNoise: () => undefined,
      onTooLarge: () => undefined,
    });
    const writer = stream.writable.getWriter();
    await expect(
      writer.write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } }),
    ).resolves.toBeUndefined();
    await expect(
      writer.write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } }),
    ).resolves.toBeUndefined();
  });
});
