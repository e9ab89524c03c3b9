/**
 * A turn as `session/prompt` content. Text and resource links are always allowed (ACP "Content");
 * images, audio and embedded files only when the agent declared the prompt capability. Otherwise the
 * file is saved in a temp folder of its own (never in the user's workspace), removed when the turn ends,
 * and the prompt names its path, so the agent can read it with its own tools.
 */
import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import type { Part } from '../../domain/task.js';
import type { Turn } from '../../ports.js';
import { AttachmentDir } from '../shared/attachment-files.js';

/** A file the agent cannot take inline: saved, and named in the prompt instead. */
interface Saved {
  part: Part & { kind: 'file' };
  why: string;
}

function attachmentBlock(part: Part, caps: PromptCapabilities): ContentBlock | Saved | undefined {
  switch (part.kind) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'data':
      return { type: 'text', text: `\`\`\`json\n${JSON.stringify(part.data, null, 2)}\n\`\`\`` };
    case 'file': {
      const { bytes, uri, mimeType, name } = part.file;
      const label = name ?? uri ?? 'file';
      if (bytes === undefined) {
        return uri === undefined
          ? undefined
          : { type: 'resource_link', uri, name: label, ...(mimeType ? { mimeType } : {}) };
      }
      if (mimeType?.startsWith('image/')) {
        return caps.image
          ? { type: 'image', data: bytes, mimeType }
          : { part, why: 'this agent does not accept images inline' };
      }
      if (mimeType?.startsWith('audio/')) {
        return caps.audio
          ? { type: 'audio', data: bytes, mimeType }
          : { part, why: 'this agent does not accept audio inline' };
      }
      if (!caps.embeddedContext) return { part, why: 'this agent does not accept embedded files' };
      return {
        type: 'resource',
        resource: {
          uri: uri ?? `attachment:${encodeURIComponent(label)}`,
          blob: bytes,
          ...(mimeType ? { mimeType } : {}),
        },
      };
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}

export interface PreparedPrompt {
  blocks: ContentBlock[];
  /** Removes the files saved for this prompt; call once the turn has ended. */
  cleanup(): Promise<void>;
}

/**
 * The prompt's blocks, saving each attachment the agent cannot take inline. `agentPath` turns a host
 * path into the agent's own spelling (a WSL agent reads /mnt/c/...).
 */
export async function preparePrompt(
  turn: Turn,
  caps: PromptCapabilities | undefined,
  agentPath: (hostPath: string) => string,
): Promise<PreparedPrompt> {
  const blocks: ContentBlock[] = [{ type: 'text', text: turn.text }];
  const files = new AttachmentDir();
  const cleanup = (): Promise<void> => files.remove();
  try {
    for (const [i, part] of turn.attachments.entries()) {
      const block = attachmentBlock(part, caps ?? {});
      if (block === undefined) continue;
      if (!('why' in block)) {
        blocks.push(block);
        continue;
      }
      const { bytes, mimeType, name } = block.part.file;
      const path = await files.write(i + 1, name, Buffer.from(bytes ?? '', 'base64'));
      const label = `"${name ?? 'file'}"${mimeType ? ` (${mimeType})` : ''}`;
      blocks.push({ type: 'text', text: `[attachment ${label} saved as ${agentPath(path)}: ${block.why}]` });
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { blocks, cleanup };
}

/** Per-task identity for a long-lived agent process (docs/contract.md#agent-environment). */
export function contactorMeta(turn: Turn): Record<string, unknown> {
  return {
    contactor: {
      taskId: turn.taskId,
      contextId: turn.contextId,
      messageId: turn.messageId,
      delegationDepth: turn.delegationDepth,
      visitedAgents: turn.visitedAgents,
    },
  };
}
