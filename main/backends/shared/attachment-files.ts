/**
 * A plain CLI only understands text, so the non-text parts of a message become files in a temp dir and
 * the prompt gets a short "Attached files:" list of their paths.
 */
import { rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECISION_CONTRACT, withoutDecisionContract } from '../../domain/decision-contract.js';
import type { Part } from '../../domain/task.js';
import { makeRunTempDir } from './run-temp-dirs.js';

export interface AttachmentFiles {
  /** The temp dir to remove after the run; undefined when nothing was written. */
  dir: string | undefined;
  /** One line per attachment: "- <path> (<mime type>)". */
  entries: string[];
}

/**
 * One run's attachments on disk: a user-only temp folder of its own (never the user's workspace; see
 * run-temp-dirs.ts), made with the first file; the run removes it when it ends, the next start after a
 * crash. CLI agents (writeAttachments) and ACP agents that cannot
 * take a file inline (acp/prompt.ts) both save their files here.
 */
export class AttachmentDir {
  private dir: string | undefined;

  /** The folder, once a file was written. */
  get path(): string | undefined {
    return this.dir;
  }

  /** Writes the `n`th attachment under a safe form of `name`; returns its path. */
  async write(n: number, name: string | undefined, content: string | Buffer): Promise<string> {
    this.dir ??= await makeRunTempDir('attachments');
    const path = join(this.dir, `${n}-${safeFileName(name)}`);
    await writeFile(path, content, { mode: 0o600 });
    return path;
  }

  async remove(): Promise<void> {
    if (this.dir !== undefined) await rm(this.dir, { recursive: true, force: true });
  }
}

export async function writeAttachments(parts: readonly Part[]): Promise<AttachmentFiles> {
  const entries: string[] = [];
  const files = new AttachmentDir();

  for (const [i, part] of parts.entries()) {
    const n = i + 1;
    if (part.kind === 'data') {
      const path = await files.write(n, 'data.json', JSON.stringify(part.data, null, 2));
      entries.push(`- ${path} (application/json)`);
    } else if (part.kind === 'file') {
      const { bytes, uri, name, mimeType } = part.file;
      const type = mimeType ? ` (${mimeType})` : '';
      if (bytes !== undefined) {
        const path = await files.write(n, name, Buffer.from(bytes, 'base64'));
        entries.push(`- ${path}${type}`);
      } else if (uri !== undefined) {
        // The bridge does not fetch remote content on an agent's behalf; a local file is named directly.
        const path = localPath(uri);
        entries.push(path === undefined ? `- ${uri}${type} (not downloaded)` : `- ${path}${type}`);
      }
    }
  }
  return { dir: files.path, entries };
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
