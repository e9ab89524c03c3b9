/**
 * An ACP `session/update` carrying reply or thought text (ACP "Agent Reports Output": an
 * `agent_message_chunk` or `agent_thought_chunk` whose content is a text block), nearly every message of a
 * streamed reply. The one schema these are parsed with: the bridge's stdio edge routes them past the SDK's
 * own `session/update` handling, which parsed each of them twice (main/backends/acp/text-chunks.ts). The
 * fields the bridge reads are checked as the SDK's schema checks them; the rest (annotations, messageId,
 * `_meta`) is dropped, as the bridge never reads it.
 */
import { z } from 'zod';

export const TEXT_UPDATES = ['agent_message_chunk', 'agent_thought_chunk'] as const;

export const AcpTextChunkSchema = z.object({
  sessionId: z.string(),
  update: z.object({
    sessionUpdate: z.enum(TEXT_UPDATES),
    content: z.object({ type: z.literal('text'), text: z.string() }),
  }),
});
export type AcpTextChunk = z.infer<typeof AcpTextChunkSchema>;
