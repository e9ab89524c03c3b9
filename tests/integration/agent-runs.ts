/**
 * The runs tests/fixtures/integration/counter.mjs recorded, told apart by prompt: each test sends a prompt
 * of its own and counts only its runs, so one test's stray run cannot fail another test.
 */
import { existsSync, readFileSync } from 'node:fs';

/** How many times the counter agent ran with a prompt containing `text` (0 when it never ran at all). */
export function runsWith(file: string, text: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .filter((line) => (JSON.parse(line) as string).includes(text)).length;
}

/** A prompt no other request of the run sends. */
export function uniquePrompt(what: string): string {
  return `${what} ${crypto.randomUUID()}`;
}
