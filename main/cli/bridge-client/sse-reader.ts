/** Server-sent events from a fetch body, one parsed event at a time, with back-pressure. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
    parser.feed(decoder.decode());
    while (queue.length > 0) yield queue.shift()!;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
