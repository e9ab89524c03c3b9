/** An SSE reader for the streaming tests: parses `id:`/`data:` frames as they arrive over fetch. */
import { createParser } from 'eventsource-parser';

export interface SseFrame {
  id: number | undefined;
  /** The SSE `event:` field (`error` for a stream's error), when set. */
  event?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

export interface OpenStream {
  status: number;
  contentType: string | null;
  /** Resolves with the frames read so far once `until` holds for one, or with all of them when the server ends the stream. */
  read(until?: (frame: SseFrame) => boolean): Promise<{ frames: SseFrame[]; ended: boolean }>;
  /** Drops the connection, as a client that goes away would. */
  close(): void;
}

export async function openStream(
  url: string,
  token: string,
  call: { method: string; params: unknown },
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'stream-1', ...call }),
  });
  const reader = res.body!.getReader();
  const frames: SseFrame[] = [];
  const parser = createParser({
    onEvent: (e) =>
      frames.push({
        id: e.id === undefined ? undefined : Number(e.id),
        ...(e.event !== undefined ? { event: e.event } : {}),
        data: JSON.parse(e.data),
      }),
  });
  const decoder = new TextDecoder();
  let ended = false;
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    async read(until) {
      let seen = 0;
      for (;;) {
        for (; seen < frames.length; seen += 1) if (until?.(frames[seen]!)) return { frames: [...frames], ended };
        if (ended) return { frames: [...frames], ended };
        const chunk = await reader.read();
        if (chunk.done) ended = true;
        else parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    },
    close() {
      abort.abort();
    },
  };
}
