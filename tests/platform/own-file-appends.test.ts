/**
 * Every file the bridge appends to lies in its data dir (logs, the audit log, serve.log), and an agent can
 * plant links there: so every append in main/ goes through the one opener that never follows a link,
 * platform/protected-files.ts `openOwnFileForAppend` (tests/security/log-links.test.ts runs the attacks).
 * This test finds any other way of appending in the sources.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/bridge.js';

const MAIN = path.join(REPO_ROOT, 'main');
const OPENER = 'main/platform/protected-files.ts';
/** appendFile(Sync), a write stream, O_APPEND, or an open with an 'a' flag ('a', 'a+', 'as', 'as+'). */
const APPENDING = /\bappendFile(?:Sync)?\b|\bcreateWriteStream\b|\bO_APPEND\b|\bopen(?:Sync)?\([^)]*['"]as?\+?['"]/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

it("appends to files only through protected-files' openOwnFileForAppend", () => {
  const found = sources(MAIN).flatMap((file) => {
    const rel = path.relative(REPO_ROOT, file).split(path.sep).join('/');
    return readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (APPENDING.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
  });
  expect(found.filter((where) => !where.startsWith(`${OPENER}:`))).toEqual([]);
  expect(found.some((where) => where.startsWith(`${OPENER}:`))).toBe(true);
});
