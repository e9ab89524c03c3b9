/**
 * A turn as `session/prompt` content. Text and resource links are always allowed (ACP "Content");
 * images, audio and embedded files only when the agent declared the prompt capability, otherwise the
 * agent is told in words that an attachment was left out, so it never answers as if it had seen it.
 */
import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import type { Part } from '../domain/task.js';
import type { Turn } from '../ports.js';

function omitted(name: string, mimeType: string | undefined, why: string): ContentBlock {
  return { type: 'text', text: `[attachment "${name}"${mimeType ? ` (${mimeType})` : ''} not sent: ${why}]` };
}

function attachmentBlock(part: Part, caps: PromptCapabilities): ContentBlock | undefined {
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
          : omitted(label, mimeType, 'this agent does not accept images');
      }
      if (mimeType?.startsWith('audio/')) {
        return caps.audio
          ? { type: 'audio', data: bytes, mimeType }
          : omitted(label, mimeType, 'this agent does not accept audio');
      }
      if (!caps.embeddedContext) return omitted(label, mimeType, 'this agent does not accept embedded files');
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

export function promptBlocks(turn: Turn, caps: PromptCapabilities | undefined): ContentBlock[] {
  const blocks: ContentBlock[] = [{ type: 'text', text: turn.text }];
  for (const part of turn.attachments) {
    const block = attachmentBlock(part, caps ?? {});
    if (block) blocks.push(block);
  }
  return blocks;
}

/** Per-task identity for a long-lived agent process (CONTRACT.md "Agent environment"). */
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
