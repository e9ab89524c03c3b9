/**
 * The probe's message stream over an agent's stdio. Like the bridge's, it sets aside stdout lines that are
 * not JSON-RPC (banners, logs) instead of letting the SDK print parse errors into the CLI's output, and
 * keeps them: a banner on stdout is often exactly why an agent "does not answer".
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { Readable, Writable } from 'node:stream';

/** A line longer than this without a newline is no protocol message worth waiting for. */
const MAX_LINE_CHARS = 4 * 1024 * 1024;

function asMessage(line: string): AnyMessage | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    const isRpc = typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
    return isRpc ? (value as AnyMessage) : undefined;
  } catch {
    return undefined;
  }
}

export function probeStream(stdin: Writable, stdout: Readable, onNoise: (line: string) => void): Stream {
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      let partial = '';
      stdout.setEncoding('utf8');
      stdout.on('data', (chunk: string) => {
        partial += chunk;
        for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
          const line = partial.slice(0, nl).replace(/\r$/, '');
          partial = partial.slice(nl + 1);
          if (line.trim() === '') continue;
          const message = asMessage(line);
          if (message) controller.enqueue(message);
          else onNoise(line);
        }
        if (partial.length > MAX_LINE_CHARS) {
          onNoise(`${partial.slice(0, 200)}… (${partial.length} characters without a line end)`);
          partial = '';
        }
      });
      stdout.on('error', () => undefined);
      stdout.once('close', () => {
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      });
    },
  });
  const writable = new WritableStream<AnyMessage>({
    // Dropped, never rejected, once the agent's stdin is gone: its exit is what the probe reports.
    write(message) {
      if (stdin.writableEnded || stdin.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        stdin.write(`${JSON.stringify(message)}\n`, () => resolve());
      });
    },
  });
  return { readable, writable };
}
