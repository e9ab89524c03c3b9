/**
 * The ACP message stream over an agent's stdio, replacing the SDK's `ndJsonStream` so the bridge sees
 * what the SDK would hide: a stdout line that is not a JSON-RPC message (a stray `console.log`, a
 * banner, JSON logs) is handed to `onNoise` instead of being answered with a parse error, and a
 * message over the size limit ends the stream through `onTooLarge` instead of growing without bound.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { MessageTooLargeError } from '@agentclientprotocol/sdk';
import type { Readable, Writable } from 'node:stream';
import { noteUnknownContent } from './content.js';
import { routeTextChunk } from './text-chunks.js';

export interface AgentStreamHooks {
  onNoise(line: string): void;
  onTooLarge(maxMessageBytes: number): void;
}

const NEWLINE = 0x0a;

function asMessage(line: string): AnyMessage | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0') {
      return value as AnyMessage;
    }
  } catch {
    // not JSON: noise
  }
  return undefined;
}

export function agentStdioStream(
  stdin: Writable,
  stdout: Readable,
  maxMessageBytes: number,
  hooks: AgentStreamHooks,
): Stream {
  let ended = false;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      let partial: Buffer[] = [];
      let partialBytes = 0;
      const fail = (): void => {
        if (ended) return;
        ended = true;
        hooks.onTooLarge(maxMessageBytes);
        controller.error(new MessageTooLargeError(maxMessageBytes));
        stdout.destroy();
      };
      /** `bytes[from, to)`: decoded in place, not copied into a buffer of its own first. */
      const line = (bytes: Buffer, from = 0, to = bytes.length): void => {
        if (to - from > maxMessageBytes) return fail();
        const text = bytes.toString('utf8', from, to).trim();
        if (text === '') return;
        const message = asMessage(text);
        // Reply text takes its own way to its handler, parsed once (text-chunks.ts).
        if (message) controller.enqueue(routeTextChunk(noteUnknownContent(message)));
        else hooks.onNoise(text);
      };
      stdout.on('data', (chunk: Buffer) => {
        let from = 0;
        for (let nl = chunk.indexOf(NEWLINE); nl !== -1 && !ended; nl = chunk.indexOf(NEWLINE, from)) {
          // A line inside one pipe read (most of them) is decoded where it lies.
          if (partial.length === 0) line(chunk, from, nl);
          else line(Buffer.concat([...partial, chunk.subarray(from, nl)]));
          partial = [];
          partialBytes = 0;
          from = nl + 1;
        }
        if (ended || from >= chunk.length) return;
        partial.push(chunk.subarray(from));
        partialBytes += chunk.length - from;
        if (partialBytes > maxMessageBytes) fail();
      });
      stdout.on('end', () => {
        if (ended) return;
        if (partialBytes > 0) line(Buffer.concat(partial));
        if (ended) return;
        ended = true;
        controller.close();
      });
      stdout.on('error', (err) => {
        if (ended) return;
        ended = true;
        controller.error(err);
      });
    },
    cancel() {
      ended = true;
      stdout.destroy();
    },
  });
  // A message to an agent whose stdin is gone (it exited, or was stopped to cancel) is dropped, never
  // rejected: the SDK does not await every write, so a rejection here would surface as an unhandled
  // rejection and take the bridge down. The agent's exit is reported once, by the connection.
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (stdin.writableEnded || stdin.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        stdin.write(`${JSON.stringify(message)}\n`, () => resolve());
      });
    },
  });
  return { readable, writable };
}
