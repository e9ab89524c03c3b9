/**
 * What an ACP agent says, as A2A parts (ACP "Content"; A2A v1 §4.1.6 Part, v0.3 §6.5): text stays text;
 * `image` / `audio` become file parts with their bytes, media type and a name; a `resource_link` a file
 * part by URL; an embedded `resource` a data part when it is JSON, a text part when it is text, else a
 * file part with its bytes. The runtime checks what comes out (base64, link schemes, the artifact cap).
 */
import type { AnyMessage, ContentBlock } from '@agentclientprotocol/sdk';
import type { FilePart, Part } from '../../domain/task.js';

/** The content block types ACP v1 defines; anything else is noted, never passed on as if understood. */
export const CONTENT_TYPES = ['text', 'image', 'audio', 'resource_link', 'resource'] as const;

export function partOf(block: ContentBlock, nth: number): Part {
  switch (block.type) {
    case 'text':
      return { kind: 'text', text: block.text };
    case 'image':
    case 'audio':
      return file({
        bytes: block.data,
        mimeType: block.mimeType,
        name:
          nameOf(block.type === 'image' ? block.uri : undefined) ??
          `${block.type}-${nth}${extensionOf(block.mimeType)}`,
      });
    case 'resource_link':
      return file({ uri: block.uri, mimeType: block.mimeType ?? undefined, name: block.name });
    case 'resource': {
      const { resource } = block;
      const mimeType = resource.mimeType ?? undefined;
      const name = nameOf(resource.uri) ?? `resource-${nth}`;
      if ('text' in resource) {
        const data = isJson(mimeType) ? jsonObject(resource.text) : undefined;
        return data ? { kind: 'data', data } : { kind: 'text', text: resource.text };
      }
      if (isJson(mimeType)) {
        const data = jsonObject(Buffer.from(resource.blob, 'base64').toString('utf8'));
        if (data) return { kind: 'data', data };
      }
      return file({ bytes: resource.blob, name, ...(mimeType ? { mimeType } : {}) });
    }
    default: {
      const never: never = block;
      return never;
    }
  }
}

/**
 * The SDK drops a whole `session/update` whose content block has a type it does not know (it fails the
 * schema), which would lose the chunk without a word. Such a block is replaced, before the SDK reads the
 * message, by a text block saying what was dropped: the requester then knows something is missing.
 */
export function noteUnknownContent(message: AnyMessage): AnyMessage {
  const m = message as { method?: unknown; params?: { update?: { sessionUpdate?: unknown; content?: unknown } } };
  const update = m.params?.update;
  if (m.method !== 'session/update' || !update || typeof update !== 'object') return message;
  if (update.sessionUpdate !== 'agent_message_chunk') return message;
  const content = update.content as { type?: unknown } | undefined;
  const type = content && typeof content === 'object' ? content.type : undefined;
  if (typeof type === 'string' && (CONTENT_TYPES as readonly string[]).includes(type)) return message;
  const label = typeof type === 'string' ? `content of type "${type.slice(0, 40)}"` : 'content without a type';
  const note = `\n[${label} not included: contactor passes on ${CONTENT_TYPES.join(', ')} content only]\n`;
  return {
    ...message,
    params: { ...m.params, update: { ...update, content: { type: 'text', text: note } } },
  } as AnyMessage;
}

function file(file: FilePart['file']): FilePart {
  return { kind: 'file', file };
}

function isJson(mimeType: string | undefined): boolean {
  return mimeType !== undefined && /^application\/([\w.-]+\+)?json\b/i.test(mimeType);
}

/** A JSON object (a v0.3 data part holds only objects); anything else stays what it was. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The last path segment of a URI, when it has one. */
function nameOf(uri: string | null | undefined): string | undefined {
  if (!uri) return undefined;
  const path = uri.replace(/[?#].*$/, '');
  return decodeSafely(path.slice(path.lastIndexOf('/') + 1)) || undefined;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function extensionOf(mimeType: string): string {
  const sub = /^[\w-]+\/([\w.+-]+)/.exec(mimeType)?.[1];
  if (!sub) return '';
  return `.${sub === 'jpeg' ? 'jpg' : sub === 'svg+xml' ? 'svg' : sub === 'mpeg' ? 'mp3' : sub.split('+')[0]}`;
}
