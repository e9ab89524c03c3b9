/**
 * Every (layer, layer) pair of docs/architecture.md "What may import what", planted and judged by the checker
 * the tree goes through: an import the table allows passes, any other is refused. rules.ts is data; this is
 * what holds every cell of it to the one list, so allowing runtime/ to import transport/ (or any pair the
 * table forbids) fails here.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importViolations, layerOf, parse } from './checker.js';
import { readDocTable } from './doc-table.js';

const TABLE = readDocTable();
const LAYERS = [...TABLE.keys()];

/** A file of each layer to plant an import in, and one to import: new names, so no file allowance applies. */
const FILE_OF: Record<string, string> = {
  ports: 'main/ports.ts',
  server: 'main/server.ts',
  preload: 'preload/planted.ts',
  renderer: 'renderer/planted.ts',
  'front-door-acp': 'main/front-doors/acp/planted.ts',
  'front-door-mcp': 'main/front-doors/mcp/planted.ts',
};
const fileIn = (layer: string): string => FILE_OF[layer] ?? `main/${layer}/planted.ts`;

function plant(from: string, target: string, typeOnly: boolean): string[] {
  let specifier = path.posix.relative(path.posix.dirname(from), target).replace(/\.ts$/, '.js');
  if (!specifier.startsWith('.')) specifier = `./${specifier}`;
  const text = `import ${typeOnly ? 'type ' : ''}{ planted } from '${specifier}';\nexport const use = planted;\n`;
  return importViolations(parse(from, text));
}

const PAIRS = LAYERS.flatMap((from) => LAYERS.map((to) => [from, to] as const));

describe('the table of docs/architecture.md', () => {
  it('names every layer once, and the files planted below are in the layer they stand for', () => {
    expect(LAYERS).toEqual(
      expect.arrayContaining(['domain', 'ports', 'runtime', 'backends', 'transport', 'shell', 'wiring', 'cli']),
    );
    expect(LAYERS.length).toBeGreaterThanOrEqual(15);
    for (const layer of LAYERS) expect(layerOf(fileIn(layer)), fileIn(layer)).toBe(layer);
  });

  it('is read as written: runtime/ gets ports and domain only; transport/ takes runtime types; wiring never shell', () => {
    expect([...TABLE.get('runtime')!.values].sort()).toEqual(['domain', 'ports']);
    expect([...TABLE.get('transport')!.types].sort()).toEqual(['ports', 'runtime']);
    expect(TABLE.get('wiring')!.values.has('shell')).toBe(false);
    expect(TABLE.get('wiring')!.values.has('audit')).toBe(true);
    expect(TABLE.get('cli')!.onlyFrom.get('wiring')).toBe('main/cli/commands/serve.ts');
  });
});

describe.each(PAIRS)('%s → %s', (from, to) => {
  const rule = TABLE.get(from)!;
  const source = fileIn(from);
  const target = fileIn(to);
  const only = rule.onlyFrom.get(to);
  const values = from === to || (rule.values.has(to) && only === undefined);
  const types = values || rule.types.has(to);

  it(values ? 'a value import passes' : 'a value import is refused', () => {
    const found = plant(source, target, false);
    if (values) expect(found).toEqual([]);
    else expect(found).toEqual([expect.stringContaining(`${source}:1:`)]);
  });

  it(types ? 'a type import passes' : 'a type import is refused', () => {
    const found = plant(source, target, true);
    if (types) expect(found).toEqual([]);
    else expect(found).toEqual([expect.stringContaining(`${source}:1:`)]);
  });

  // Only the pairs with an `X only from <file>` clause have a third cell (no skipped placeholders).
  if (only !== undefined)
    it(`passes from ${only} alone`, () => {
      expect(plant(only, target, false)).toEqual([]);
    });
});
