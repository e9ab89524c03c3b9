/**
 * What `npm run test:windows` says while it works (run.mjs): each set-up step with its duration, one line
 * per test file as it finishes (file-reporter.ts writes them, the lane reads them as they come: Wine cannot
 * write into a Linux pipe), and where its cache is, how large, and how to remove it.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';

const PREFIX = 'windows lane:';

/** Runs one set-up step and prints it with how long it took. */
export async function step<T>(
  name: string,
  run: () => T | Promise<T>,
  { log = console.log, now = Date.now }: { log?: (line: string) => void; now?: () => number } = {},
): Promise<T> {
  const began = now();
  const result = await run();
  log(`${PREFIX} ${name} (${formatSeconds(now() - began)})`);
  return result;
}

export function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Bytes under `dir`, links not followed (the Wine prefix links into the system's own files). */
export function folderSize(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length) {
    const current = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) total += lstatSync(full).size;
    }
  }
  return total;
}

/** Where the lane keeps Wine, the Windows Node and its downloads, how large it is, and how to remove it. */
export function cacheReport(dir: string): string {
  let exists = true;
  try {
    statSync(dir);
  } catch {
    exists = false;
  }
  if (!exists) return `${PREFIX} cache ${dir}: none yet`;
  return `${PREFIX} cache ${dir}: ${formatBytes(folderSize(dir))} (Wine prefix, Windows Node, downloads); kept for the next run, remove it with \`rm -rf ${dir}\``;
}

/**
 * Reads the whole lines appended to `file` since the last call (the file may not exist yet). run.mjs calls
 * `poll` on an interval while vitest runs, and once more after it exits.
 */
export function tailLines(file: string): () => string[] {
  let offset = 0;
  let partial = '';
  return function poll(): string[] {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return [];
    }
    try {
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0) break;
        offset += read;
        chunks.push(Buffer.from(buffer.subarray(0, read)));
      }
      const text = partial + Buffer.concat(chunks).toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      return lines.filter((line) => line !== '');
    } finally {
      closeSync(fd);
    }
  };
}
