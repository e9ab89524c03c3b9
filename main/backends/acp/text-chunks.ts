/**
 * Reply text parsed once. The SDK's client app parses every `session/update` twice with its zod schema:
 * its session router always does (to feed the SDK's own session objects, which the bridge does not use),
 * then the typed handler the bridge registers does it again (~3 µs per message, ~3 ms per MB of a reply
 * in 1 KiB chunks: docs/benchmark.md#round-6-the-10-mb-reply). Text chunks, almost all of a streamed reply,
 * are renamed at the stdio edge to a method only this process knows, so the router passes them by, and
 * their handler parses them with the one schema for that shape (schema/acp-text-chunk.ts). They keep their
 * place among the agent's messages: the SDK dispatches them as it dispatches every notification. Every
 * other update takes the SDK's way as before, and a text chunk the schema refuses is dropped as the SDK
 * drops a `session/update` it refuses.
 */
import type { AnyMessage, ClientApp } from '@agentclientprotocol/sdk';
import { AcpTextChunkSchema, TEXT_UPDATES, type AcpTextChunk } from '../../schema/acp-text-chunk.js';

/** Never on the wire: the name a text chunk has between the stdio edge and its handler (`_`: an extension). */
export const TEXT_CHUNK_METHOD = '_contactor/text_chunk';

/** The message as the SDK gets it: a `session/update` with text content under TEXT_CHUNK_METHOD. */
export function routeTextChunk(message: AnyMessage): AnyMessage {
  const m = message as {
    id?: unknown;
    method?: unknown;
    params?: { update?: { sessionUpdate?: unknown; content?: { type?: unknown } } };
  };
  if (m.method !== 'session/update' || 'id' in m) return message;
  const update = m.params?.update;
  if (!(TEXT_UPDATES as readonly unknown[]).includes(update?.sessionUpdate) || update?.content?.type !== 'text') {
    return message;
  }
  return { ...message, method: TEXT_CHUNK_METHOD } as AnyMessage;
}

/** Registers the handler of the routed text chunks: parsed with AcpTextChunkSchema, then `deliver`. */
export function onTextChunks(app: ClientApp, deliver: (chunk: AcpTextChunk) => void): ClientApp {
  return app.onNotification(TEXT_CHUNK_METHOD, AcpTextChunkSchema, ({ params }) => deliver(params));
}
