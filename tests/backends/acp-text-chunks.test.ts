/**
 * Reply text is parsed once (main/backends/acp/text-chunks.ts): a text chunk reaches its handler renamed at
 * the stdio edge, past the SDK's `session/update` handling (which parses every update twice), validated by
 * the one schema for its shape; every other update still takes the SDK's typed handler, in the agent's order.
 * The real SDK client app over the bridge's own stdio stream.
 */
import { client, methods } from '@agentclientprotocol/sdk';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentStdioStream } from '../../main/backends/acp/stdio-stream.js';
import { onTextChunks } from '../../main/backends/acp/text-chunks.js';

const update = (u: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: 's', update: u },
});

describe('ACP text chunks', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reach their handler validated, without the SDK session/update handler, in order with the other updates', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const seen: unknown[] = [];
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    // Six of the seven messages are heard, whichever way they take.
    const hear = (what: unknown) => seen.push(what) === 6 && ended();
    const app = onTextChunks(client({ name: 'test' }), (chunk) => {
      hear(['text chunk', chunk]);
    }).onNotification(methods.client.session.update, ({ params }) => {
      hear(['sdk', params.update.sessionUpdate]);
    });
    const stdout = new PassThrough();
    app.connect(agentStdioStream(new PassThrough(), stdout, 1024 * 1024, { onNoise: () => {}, onTooLarge: () => {} }));
    const lines = [
      update({
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm1',
        content: { type: 'text', text: 'hello', annotations: { priority: 1 } },
        _meta: { x: 1 },
      }),
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'read a.txt', kind: 'read', status: 'pending' }),
      update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thinking' } }),
      // Text that is not text: refused by the schema, as the SDK refuses it, and nobody hears of it.
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 5 } }),
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      }),
      update({ sessionUpdate: 'plan', entries: [] }),
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the end' } }),
    ];
    stdout.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    await end;
    expect(seen).toEqual([
      [
        'text chunk',
        { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } } },
      ],
      ['sdk', 'tool_call'],
      [
        'text chunk',
        {
          sessionId: 's',
          update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thinking' } },
        },
      ],
      ['sdk', 'agent_message_chunk'],
      ['sdk', 'plan'],
      [
        'text chunk',
        {
          sessionId: 's',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the end' } },
        },
      ],
    ]);
    expect(errors).toHaveBeenCalledTimes(1);
  });
});
