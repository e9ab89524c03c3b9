/** Writing to an agent whose stdin is gone must never reject: it would be an unhandled rejection. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { agentStdioStream } from '../../main/backends/acp/stdio-stream.js';

describe('agentStdioStream', () => {
  it('reads every line exactly, whether it lies inside one read or spans reads (a character split too)', async () => {
    const stdout = new PassThrough();
    const noise: string[] = [];
    const stream = agentStdioStream(new PassThrough(), stdout, 1024 * 1024, {
      onNoise: (line) => noise.push(line),
      onTooLarge: () => undefined,
    });
    const message = (text: string) => ({ jsonrpc: '2.0', method: 'session/update', params: { text } });
    const lines = ['é'.repeat(300), 'plain', '€ split', 'last'].map((t) => `${JSON.stringify(message(t))}\n`);
    const bytes = Buffer.from(`${lines[0]}${lines[1]}banner line\r\n${lines[2]}${lines[3]}`);
    // Reads that cut a line in its middle and a three-byte character in two; two lines share one read.
    const euro = bytes.indexOf(Buffer.from('€'));
    const cuts = [0, 100, Buffer.byteLength(lines[0]!) + 5, euro + 1, bytes.length];
    for (let i = 1; i < cuts.length; i++) stdout.write(bytes.subarray(cuts[i - 1], cuts[i]));
    stdout.end();
    const got: unknown[] = [];
    for await (const m of stream.readable) got.push(m);
    expect(got).toEqual(['é'.repeat(300), 'plain', '€ split', 'last'].map(message));
    expect(noise).toEqual(['banner line']);
  });

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
