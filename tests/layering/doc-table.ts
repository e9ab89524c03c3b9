/**
 * The one list of what may import what: the code block under "What may import what" in docs/architecture.md,
 * read into layer pairs. tests/layering/pairs.test.ts holds the checker (and so rules.ts) to it for every pair.
 *
 * A line is `<layer> → <clauses separated by ;>`, continued on indented lines. In a clause:
 * - layer names (`runtime`, `ports`, `server.ts`, `main/domain`, ...) are allowed whole;
 * - `types from A and B`, or names followed by `(types only)`, are allowed as types only;
 * - `X only from <file>` allows layer X from that file of the line's layer alone;
 * - `everything above` is every layer of the lines before;
 * - a file (`stores/delegating-store.ts`, `schema/ipc`), a package or `node:` is an allowance for that file or
 *   package only, and a note in parentheses (`(never shell/)`) adds nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './checker.js';

export interface DocRule {
  /** Layers whose values may be imported. */
  values: Set<string>;
  /** Layers that may be imported as types only. */
  types: Set<string>;
  /** Layer → the one file (from the repository root) that may import it. */
  onlyFrom: Map<string, string>;
}

/** The layers of the table, by how the left column names them. */
const LAYER_NAMES: Record<string, string> = {
  domain: 'domain',
  'ports.ts': 'ports',
  ports: 'ports',
  schema: 'schema',
  platform: 'platform',
  config: 'config',
  runtime: 'runtime',
  backends: 'backends',
  stores: 'stores',
  transport: 'transport',
  'server.ts': 'server',
  server: 'server',
  wiring: 'wiring',
  audit: 'audit',
  shell: 'shell',
  cli: 'cli',
  preload: 'preload',
  renderer: 'renderer',
  'front-doors/acp': 'front-door-acp',
  'front-doors/mcp': 'front-door-mcp',
};

/** Where each layer's files live, to name the file an `only from` clause means. */
const FOLDERS: Record<string, string> = { cli: 'main/cli/' };

function layerNamed(word: string): string | undefined {
  const bare = word
    .trim()
    .replace(/^main\//, '')
    .replace(/\/$/, '');
  return LAYER_NAMES[bare];
}

/** The table's lines: [left column, right-hand side with its continuation lines]. */
function tableLines(doc: string): [string, string][] {
  const section = doc.slice(doc.indexOf('## What may import what'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/architecture.md has no code block under "What may import what"');
  const lines: [string, string][] = [];
  for (const line of block.split('\n').filter((l) => l.trim() !== '')) {
    const arrow = /^(\S+)\s+→\s+(.*)$/.exec(line);
    if (arrow) lines.push([arrow[1]!, arrow[2]!]);
    else if (lines.length > 0) lines.at(-1)![1] += ` ${line.trim()}`;
    else throw new Error(`a line of the table before its first entry: ${line}`);
  }
  return lines;
}

export function readDocTable(file = path.join(ROOT, 'docs', 'architecture.md')): Map<string, DocRule> {
  const table = new Map<string, DocRule>();
  for (const [left, right] of tableLines(readFileSync(file, 'utf8'))) {
    const layer = layerNamed(left);
    if (!layer) throw new Error(`docs/architecture.md names an unknown layer: ${left}`);
    const rule: DocRule = { values: new Set(), types: new Set(), onlyFrom: new Map() };
    for (const raw of right.split(';')) {
      const typesOnly = /\(types only\)/.test(raw);
      const clause = raw.replace(/\([^)]*\)/g, '').trim();
      const typesFrom = /^types from (.*)$/.exec(clause);
      const onlyFrom = /^(\S+) only from (\S+)$/.exec(clause);
      if (onlyFrom) {
        const target = layerNamed(onlyFrom[1]!);
        if (target) rule.onlyFrom.set(target, `${FOLDERS[layer] ?? ''}${onlyFrom[2]}`);
        continue;
      }
      const words = (typesFrom ? typesFrom[1]! : clause).split(/,| and /);
      for (const word of words) {
        if (/everything above/.test(word)) {
          for (const above of table.keys()) rule.values.add(above);
          continue;
        }
        const named = layerNamed(word);
        if (named) (typesFrom || typesOnly ? rule.types : rule.values).add(named);
      }
    }
    table.set(layer, rule);
  }
  return table;
}
