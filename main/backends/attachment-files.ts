/**
 * A plain CLI only understands text, so the non-text parts of a message become files in a temp dir and
 * the prompt gets a short "Attached files:" list of their paths.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECISION_CONTRACT, withoutDecisionContract } from '../domain/decision-contract.js';
import type { Part } from '../domain/task.js';

export interface AttachmentFiles {
  /** The temp dir to remove after the run; undefined when nothing was written. */
  dir: string | undefined;
  /** One line per attachment: "- <path> (<mime type>)". */
  entries: string[];
}

export async function writeAttachments(parts: readonly Part[]): Promise<AttachmentFiles> {
  const entries: string[] = [];
  let dir: string | undefined;
  const tempDir = async (): Promise<string> => (dir ??= await mkdtemp(join(tmpdir(), 'contactor-attachments-')));

  for (const [i, part] of parts.entries()) {
    const n = i + 1;
    if (part.kind === 'data') {
      const path = join(await tempDir(), `${n}-data.json`);
      await writeFile(path, JSON.stringify(part.data, null, 2));
      entries.push(`- ${path} (application/json)`);
    } else if (part.kind === 'file') {
      const { bytes, uri, name, mimeType } = part.file;
      const type = mimeType ? ` (${mimeType})` : '';
      if (bytes !== undefined) {
        const path = join(await tempDir(), `${n}-${safeFileName(name)}`);
        await writeFile(path, Buffer.from(bytes, 'base64'));
        entries.push(`- ${path}${type}`);
      } else if (uri !== undefined) {
        // The bridge does not fetch remote content on an agent's behalf; a local file is named directly.
        const path = localPath(uri);
        entries.push(path === undefined ? `- ${uri}${type} (not downloaded)` : `- ${path}${type}`);
      }
    }
  }
  return { dir, entries };
}

/**
 * Adds the list to the prompt, before the decision contract when the prompt ends with it, so the
 * contract stays the last thing the agent reads.
 */
export function promptWithAttachments(text: string, entries: readonly string[]): string {
  if (entries.length === 0) return text;
  const list = `\n\nAttached files:\n${entries.join('\n')}`;
  return text.endsWith(DECISION_CONTRACT) ? withoutDecisionContract(text) + list + DECISION_CONTRACT : text + list;
}

function localPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined; // e.g. a file URI naming another host
  }
}

/** A name safe to write in a folder of our own: no path parts, no odd characters, never empty. */
export function safeFileName(name: string | undefined): string {
  const cleaned = basename(name ?? '')
    .replace(/[^\w.\- ]+/g, '_')
    .slice(0, 100);
  return cleaned === '' || /^\.+$/.test(cleaned) ? 'attachment' : cleaned;
}
