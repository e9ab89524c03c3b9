/**
 * What an editor sends (ACP "Content") as a bridge send's text and files: text stays text, an image or an
 * embedded resource becomes an attached file with its bytes (the `files` of the shorthand send,
 * docs/contract.md#sending-a-message), a resource link is named in the text with its URI (the bridge
 * attaches bytes, not links it would have to fetch).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';

export interface PromptFile {
  name: string;
  mimeType?: string;
  /** base64 */
  bytes: string;
}

export function promptOf(blocks: readonly ContentBlock[]): { text: string; files: PromptFile[] } {
  const text: string[] = [];
  const files: PromptFile[] = [];
  blocks.forEach((block, i) => {
    switch (block.type) {
      case 'text':
        text.push(block.text);
        return;
      case 'resource_link':
        text.push(`[${block.name}](${block.uri})`);
        return;
      case 'image':
      case 'audio':
        files.push({
          name: nameOf(block.type === 'image' ? block.uri : undefined) ?? `${block.type}-${i + 1}`,
          mimeType: block.mimeType,
          bytes: block.data,
        });
        return;
      case 'resource': {
        const { resource } = block;
        const bytes = 'text' in resource ? Buffer.from(resource.text, 'utf8').toString('base64') : resource.blob;
        const mimeType = resource.mimeType ?? ('text' in resource ? 'text/plain' : undefined);
        files.push({ name: nameOf(resource.uri) ?? `resource-${i + 1}`, ...(mimeType ? { mimeType } : {}), bytes });
        return;
      }
      default:
        return;
    }
  });
  // A prompt of files alone still says what it is: the bridge sends no task without text.
  const said = text.join('\n');
  return { text: said !== '' ? said : `attached: ${files.map((f) => f.name).join(', ')}`, files };
}

function nameOf(uri: string | null | undefined): string | undefined {
  if (!uri) return undefined;
  const path = uri.replace(/[?#].*$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || undefined;
  } catch {
    return last || undefined;
  }
}
