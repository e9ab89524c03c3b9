/**
 * What an OpenAI-compatible chat-completions server sends back (the `http_api` backend's edge).
 * Loose on purpose: servers (OpenAI, Ollama, llama.cpp, vLLM, LM Studio) add members of their own, and
 * only the ones read here matter.
 */
import { z } from 'zod';

/** One `data:` line of a `stream: true` response (`chat.completion.chunk`). */
export const ChatCompletionChunkSchema = z.looseObject({
  id: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        delta: z.looseObject({ content: z.string().nullish() }).optional(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  /** Some servers report a failure inside the stream instead of with an HTTP status. */
  error: z.unknown().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

/** A whole completion, for servers that ignore `stream: true` and answer in one JSON document. */
export const ChatCompletionSchema = z.looseObject({
  id: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullish() }).optional(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
});

/** Error bodies: OpenAI `{error: {message}}`, Ollama `{error: "..."}`, others `{message}` or `{detail}`. */
export const ChatErrorBodySchema = z.union([
  z.looseObject({ error: z.looseObject({ message: z.string() }) }),
  z.looseObject({ error: z.string() }),
  z.looseObject({ message: z.string() }),
  z.looseObject({ detail: z.string() }),
]);

export function errorMessageOf(body: unknown): string | undefined {
  const parsed = ChatErrorBodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const b = parsed.data as { error?: string | { message: string }; message?: string; detail?: string };
  if (b.error !== undefined) return typeof b.error === 'string' ? b.error : b.error.message;
  return b.message ?? b.detail;
}
