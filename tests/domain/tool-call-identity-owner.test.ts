/**
 * Whether two tool calls are the same is decided in one file, main/domain/tool-call-identity.ts: no other
 * source compares tool calls on its own (by command, raw input, title or kind), nor builds a key of one to
 * compare later. The check reads the source text; a planted comparison of each shape proves it finds them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OWNER = 'main/domain/tool-call-identity.ts';

/** Lines that look like a comparison but are not one of two calls, each with the reason. */
const NOT_IDENTITY: Record<string, string> = {
  // An approval rule's regular expression is tested against this text; no second call is involved.
  'main/runtime/approval-rules.ts': `return commandOf(toolCall) || (toolCall.rawInput === undefined ? '' : JSON.stringify(toolCall.rawInput));`,
  // The approval card shows the title too when it says more than the command.
  'renderer/card.ts': `if (command !== p.toolCall.title) element.append(el('p', 'title', p.toolCall.title, 'one-line'));`,
};

const SHAPES = [
  // a === b where a side is a command, a raw input or a tool call's field (a presence check is not)
  /(commandOf\([^)]*\)|rawInput|toolCall\.(title|kind|locations))\s*[!=]==?(?!=?\s*(undefined|null)\b)\s*\S/,
  /[!=]==?\s*(commandOf\(|[\w.]*rawInput\b|[\w.]*toolCall\.)/,
  // a key made of a command or a raw input, to be compared later (a Set, a Map)
  /\$\{\s*commandOf\(/,
  /(JSON\.stringify|canonicalJson)\([\w.]*(rawInput|toolCall)\b/,
];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** `file:line: text` of every line outside the owner that compares tool calls. */
function comparisons(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([file, text]) =>
    file === OWNER
      ? []
      : text.split('\n').flatMap((line, i) => {
          const code = line.trim();
          if (code.startsWith('//') || code.startsWith('*') || NOT_IDENTITY[file] === code) return [];
          // A type check (`typeof rawInput !== 'object'`) reads one call's shape; it compares no two calls.
          const compared = code.replace(/typeof\s+[\w.]+\s*[!=]==?\s*'\w+'/g, '');
          return SHAPES.some((s) => s.test(compared)) ? [`${file}:${i + 1}: ${code}`] : [];
        }),
  );
}

describe(`tool-call identity has one owner (${OWNER})`, () => {
  it('no other file compares tool calls', () => {
    const files = Object.fromEntries(
      ['main', 'renderer', 'preload'].flatMap(sources).map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]),
    );
    expect(Object.keys(files)).toContain(OWNER);
    expect(comparisons(files)).toEqual([]);
  });

  it.each([
    ['a command compared', `  if (command !== '') return command === commandOf(b);`],
    ['a raw input compared', `  return JSON.stringify(a.rawInput) === JSON.stringify(b.rawInput);`],
    ['a title compared', `  if (carried.toolCall.title === toolCall.title) return carried.option;`],
    ['a key of kind and command', "  return `${toolCall.kind ?? ''}\\u0000${commandOf(toolCall)}`;"],
    ['a key of the raw input', `  seen.add(canonicalJson(toolCall.rawInput));`],
    [
      'a comparison beside a type check',
      `  if (typeof a.rawInput === 'object' && a.rawInput === b.rawInput) return true;`,
    ],
  ])('finds a planted one: %s', (_shape, line) => {
    expect(comparisons({ 'main/runtime/planted.ts': `const x = 1;\n${line}\n` })).toEqual([
      `main/runtime/planted.ts:2: ${line.trim()}`,
    ]);
  });

  it.each([
    ['a presence check', `  ...(rawInput !== undefined ? { rawInput } : {}),`],
    ['a null check', `  if (toolCall.title == null) return;`],
  ])('lets one call be read: %s', (_shape, line) => {
    expect(comparisons({ 'main/runtime/planted.ts': `const x = 1;\n${line}\n` })).toEqual([]);
  });
});
