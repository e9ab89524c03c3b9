/**
 * Reads a chat-completions reply: the SSE stream of `stream: true` (`data: {chunk}` lines, then
 * `data: [DONE]`), or one JSON document from a server that ignores `stream`. Text is handed on as it
 * arrives, so whatever came before a break is kept.
 */
import { createParser } from 'eventsource-parser';
import { ChatCompletionChunkSchema, ChatCompletionSchema, errorMessageOf } from '../../schema/http-api.js';
import { isAbort, safeJson } from '../shared/fetch-util.js';

export interface ChatReadResult {
  /** `[DONE]` arrived, or a chunk carried a finish_reason: the reply is whole. */
  complete: boolean;
  finishReason?: string;
  responseId?: string;
  /** Why the reply is not whole (connection cut, malformed chunk, an error inside the stream). */
  broken?: string;
  chars: number;
}

export async function readChatStream(
  body: ReadableStream<Uint8Array>,
  onText: (text: string) => void,
): Promise<ChatReadResult> {
  const result: ChatReadResult = { complete: false, chars: 0 };
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done) return;
      if (event.data.trim() === '[DONE]') {
        done = true;
        result.complete = true;
        return;
      }
      const chunk = ChatCompletionChunkSchema.safeParse(safeJson(event.data));
      if (!chunk.success) {
        done = true;
        result.broken = `malformed stream chunk: ${event.data.slice(0, 120)}`;
        return;
      }
      if (chunk.data.error !== undefined) {
        done = true;
        result.broken = `error inside the stream: ${errorMessageOf(chunk.data) ?? JSON.stringify(chunk.data.error).slice(0, 200)}`;
        return;
      }
      result.responseId ??= chunk.data.id;
      const choice = chunk.data.choices[0];
      const text = choice?.delta?.content;
      if (text) {
        result.chars += text.length;
        onText(text);
      }
      if (choice?.finish_reason) result.finishReason = choice.finish_reason;
    },
  });

  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!done) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (err) {
    // An abort is the caller's business (it knows it aborted); anything else is a cut connection.
    if (isAbort(err)) throw err;
    result.broken ??= `the connection broke mid-stream (${describeCause(err)})`;
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  // A server that closes right after the last finish_reason (no [DONE]) still sent a whole reply.
  if (!result.complete && !result.broken) {
    if (result.finishReason) result.complete = true;
    else result.broken = 'the stream ended before the reply was finished (no finish_reason, no [DONE])';
  }
  return result;
}

/** A server that answered `stream: true` with a plain completion. */
export function readChatDocument(text: string, onText: (text: string) => void): ChatReadResult {
  const parsed = ChatCompletionSchema.safeParse(safeJson(text));
  const choice = parsed.success ? parsed.data.choices[0] : undefined;
  if (!parsed.success || !choice)
    return { complete: false, chars: 0, broken: `unreadable completion: ${text.slice(0, 120)}` };
  const content = choice.message?.content ?? '';
  if (content) onText(content);
  return {
    complete: true,
    chars: content.length,
    ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(parsed.data.id ? { responseId: parsed.data.id } : {}),
  };
}

/** fetch wraps the real reason (ECONNREFUSED, "other side closed") in `cause`. */
export function describeCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  const detail = cause?.code ?? cause?.message;
  return detail && detail !== err.message ? `${err.message}: ${detail}` : err.message;
}
