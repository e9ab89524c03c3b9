/**
 * The layering of ARCHITECTURE.md, held by a test ("Import direction"; judgement 9). The sources are
 * parsed with the TypeScript compiler, so comments never count and prose inside strings is told apart
 * from code. Each violation prints `file:line: rule`.
 *
 * The table below is ARCHITECTURE.md's, plus what it leaves implicit, said explicitly: the third-party
 * packages each layer may use, node: builtins wherever I/O happens (never in domain/ or runtime/), type-only
 * zod where schema types flow, and the small top-level modules the table does not name (data-dir.ts,
 * logging.ts, the audit log).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AgentConfigSchema } from '../main/schema/config.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAIN = path.join(ROOT, 'main');

type Layer =
  | 'domain'
  | 'ports'
  | 'schema'
  | 'config'
  | 'runtime'
  | 'backends'
  | 'stores'
  | 'transport'
  | 'server'
  | 'wiring'
  | 'shell'
  | 'cli'
  | 'data-dir'
  | 'logging'
  | 'audit';

interface Rule {
  /** Layers (or single files, as `schema/ipc.ts`) whose values may be imported. */
  imports: string[];
  /** Layers or files that may be imported with `import type` only. */
  typeImports?: string[];
  /** Third-party packages; `{ name: files }` limits one to some files of the layer. */
  packages?: (string | { name: string; only: string[] })[];
  typePackages?: string[];
  /** node: builtins (I/O). */
  node: boolean;
  /** An import of `target` allowed only from these files (cli: wiring only for `serve`). */
  onlyFrom?: Record<string, string[]>;
}

const RULES: Record<Layer, Rule> = {
  domain: { imports: ['domain'], node: false },
  ports: { imports: [], typeImports: ['domain'], node: false },
  schema: { imports: ['schema', 'domain'], packages: ['zod'], node: false },
  config: { imports: ['schema', 'domain'], packages: ['yaml'], node: true },
  runtime: { imports: ['runtime', 'ports', 'domain'], node: false },
  backends: {
    imports: ['backends', 'ports', 'domain', 'schema'],
    // eventsource-parser: the SSE replies of the http_api and a2a kinds.
    packages: ['@agentclientprotocol/sdk', 'eventsource-parser'],
    node: true,
  },
  stores: { imports: ['stores', 'ports', 'domain', 'schema'], packages: ['better-sqlite3'], node: true },
  transport: {
    imports: ['transport', 'domain', 'schema'],
    typeImports: ['runtime', 'ports'],
    packages: [
      { name: 'koa', only: ['transport/http.ts'] },
      { name: '@koa/router', only: ['transport/http.ts'] },
      // raw-body: the request body, read by the Koa adapter and by the plain JSON-RPC POST fast path.
      { name: 'raw-body', only: ['transport/http.ts', 'transport/rpc-post.ts'] },
    ],
    typePackages: ['zod'],
    node: true,
  },
  // data-dir: the discovery file the server publishes (CONTRACT.md "Files and places").
  server: { imports: ['runtime', 'transport', 'ports', 'domain', 'data-dir'], node: true },
  wiring: {
    imports: [
      'domain',
      'ports',
      'schema',
      'config',
      'runtime',
      'backends',
      'stores',
      'transport',
      'server',
      'wiring',
      'data-dir',
      'logging',
      'audit',
    ],
    node: true,
  },
  shell: { imports: ['shell', 'wiring', 'server', 'schema/ipc.ts', 'domain'], packages: ['electron'], node: true },
  cli: {
    // data-dir: the CLI reads the discovery file and the token the bridge wrote.
    // backends/acp-launch, child-process, win32-command, acp-stdio-stream, acp-client-capabilities: `doctor` /
    // `probe` start an ACP agent exactly as the ACP backend does (same npm-shim probe, same stdio stream, same
    // declared capabilities), run `initialize` only and stop its tree — an explicit allowance for
    // cli/acp-probe.ts alone.
    imports: [
      'cli',
      'schema',
      'domain',
      'config',
      'data-dir',
      'wiring',
      'backends/acp-launch.ts',
      'backends/child-process.ts',
      'backends/win32-command.ts',
      'backends/acp-stdio-stream.ts',
      'backends/acp-client-capabilities.ts',
    ],
    onlyFrom: { wiring: ['cli/commands/serve.ts'], backends: ['cli/acp-probe.ts'] },
    // yaml: `contactor setup` writes config entries; reading config goes through config.ts.
    packages: [
      'commander',
      'picocolors',
      'eventsource-parser',
      'yaml',
      { name: '@agentclientprotocol/sdk', only: ['cli/acp-probe.ts'] },
    ],
    typePackages: ['zod', '@agentclientprotocol/sdk'],
    node: true,
  },
  'data-dir': { imports: [], typeImports: ['schema'], node: true },
  logging: { imports: ['domain'], packages: ['pino'], node: true },
  // stores/delegating-store.ts: the audited store is a delegating store that adds the creation witness.
  audit: { imports: ['audit', 'logging', 'ports', 'domain', 'schema', 'stores/delegating-store.ts'], node: true },
};

/** The layer of a file under main/ (path relative to main/, forward slashes). */
function layerOf(rel: string): Layer | undefined {
  const top = rel.split('/')[0]!;
  if (rel.includes('/'))
    return (['domain', 'schema', 'runtime', 'backends', 'stores', 'transport', 'shell', 'cli'] as const).find(
      (l) => l === top,
    );
  const files: Record<string, Layer> = {
    'ports.ts': 'ports',
    'config.ts': 'config',
    // Where an agent's tasks may run: the config's roots, checked with node:fs (issue 16 item 1).
    'cwd-confinement.ts': 'config',
    // What of the inherited environment agents may not see (issue 16 item 8): composed with config.ts's allow-list.
    'agent-env-filter.ts': 'config',
    'known-agents.ts': 'config',
    'config-watch.ts': 'config',
    'config-reload.ts': 'wiring',
    'server.ts': 'server',
    'wiring.ts': 'wiring',
    // Parts of the composition root: the agents' backends and settings, and the HTTP edge with its server.
    'wiring-agents.ts': 'wiring',
    'wiring-http.ts': 'wiring',
    'data-dir.ts': 'data-dir',
    'data-dir-modes.ts': 'data-dir',
    'logging.ts': 'logging',
    'audit-log.ts': 'audit',
    'audit-entries.ts': 'audit',
    'audited-store.ts': 'audit',
  };
  return files[rel];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const FILES = sourceFiles(MAIN).map((file) => {
  const rel = path.relative(MAIN, file).split(path.sep).join('/');
  return { file, rel, source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true) };
});

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

interface ImportSite {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

function importsOf(source: ts.SourceFile): ImportSite[] {
  const sites: ImportSite[] = [];
  walk(source, (n) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const clause = n.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      sites.push({ specifier: n.moduleSpecifier.text, typeOnly, line: lineOf(source, n) });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      sites.push({ specifier: n.moduleSpecifier.text, typeOnly: n.isTypeOnly, line: lineOf(source, n) });
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      sites.push({ specifier: n.argument.literal.text, typeOnly: true, line: lineOf(source, n) });
    } else if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.expression) && n.expression.text === 'require'))
    ) {
      const arg = n.arguments[0];
      sites.push({
        specifier: arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>',
        typeOnly: false,
        line: lineOf(source, n),
      });
    }
  });
  return sites;
}

const BUILTINS = new Set(builtinModules);

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Checks one import against the importing file's rule; returns the broken rule, or undefined. */
function verdict(rel: string, layer: Layer, site: ImportSite): string | undefined {
  const rule = RULES[layer];
  const { specifier, typeOnly } = site;
  if (specifier === '<computed>') return `${layer}/ imports a computed module name: the layering cannot be checked`;
  if (specifier.startsWith('node:') || BUILTINS.has(packageOf(specifier))) {
    return rule.node ? undefined : `${layer}/ may not use node builtins (${specifier}): no I/O in this layer`;
  }
  if (!specifier.startsWith('.')) {
    const name = packageOf(specifier);
    const entry = rule.packages?.find((p) => (typeof p === 'string' ? p : p.name) === name);
    if (entry && (typeof entry === 'string' || entry.only.includes(rel))) return undefined;
    if (typeOnly && rule.typePackages?.includes(name)) return undefined;
    if (entry) return `${name} may only be imported by ${(entry as { only: string[] }).only.join(', ')}`;
    const allowed = [
      ...(rule.packages ?? []).map((p) => (typeof p === 'string' ? p : p.name)),
      ...(rule.typePackages ?? []).map((p) => `type ${p}`),
    ];
    return `${layer}/ may not import the package ${name} (allowed: ${allowed.join(', ') || 'none'})`;
  }
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), specifier)).replace(/\.js$/, '.ts');
  if (target.startsWith('..')) return `${layer}/ imports ${specifier}, outside main/`;
  const targetLayer = layerOf(target);
  if (!targetLayer) return `${specifier} resolves to ${target}, which is in no layer of the table`;
  const matches = (list: string[] | undefined) => !!list && (list.includes(targetLayer) || list.includes(target));
  if (targetLayer === layer && layer !== 'wiring') return undefined;
  const only = rule.onlyFrom?.[targetLayer];
  if (only && !only.includes(rel)) return `${layer}/ may import ${targetLayer} only from ${only.join(', ')}`;
  if (matches(rule.imports)) return undefined;
  if (typeOnly && matches(rule.typeImports)) return undefined;
  if (matches(rule.typeImports)) return `${layer}/ may import only types from ${targetLayer} (use \`import type\`)`;
  return `${layer}/ may not import ${targetLayer === 'schema' ? target : targetLayer} (allowed: ${[...rule.imports, ...(rule.typeImports ?? []).map((t) => `type ${t}`)].join(', ') || 'nothing'})`;
}

/** Words of an identifier: `withDecisionContract` → with, decision, contract; `subprocess_cli` → subprocess, cli. */
function wordsOf(identifier: string): string[] {
  return (identifier.match(/[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g) ?? []).map((w) => w.toLowerCase());
}

/**
 * The code words of a file: identifiers, and string literals that look like code (no spaces, e.g. a
 * discriminant or a module name). Strings with spaces are prose (messages, doc text) and do not count.
 */
function codeWords(source: ts.SourceFile): { words: string[]; raw: string; line: number }[] {
  const out: { words: string[]; raw: string; line: number }[] = [];
  walk(source, (n) => {
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n))
      out.push({ words: wordsOf(n.text), raw: n.text, line: lineOf(source, n) });
    else if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && /^[\w.:/@-]+$/.test(n.text)) {
      out.push({ words: wordsOf(n.text), raw: n.text, line: lineOf(source, n) });
    }
  });
  return out;
}

/** True when consecutive words of `words` spell `term` (`['subprocess','cli']` spells "subprocesscli"). */
function spells(words: string[], term: string): boolean {
  for (let i = 0; i < words.length; i += 1) {
    let joined = '';
    for (let j = i; j < words.length && joined.length < term.length; j += 1) {
      joined += words[j];
      if (joined === term) return true;
    }
  }
  return false;
}

const CORE = FILES.filter((f) => f.rel.startsWith('domain/') || f.rel === 'ports.ts');
const FORBIDDEN_IN_CORE = ['acp', 'session', 'prompt', 'stdio', 'subprocess', 'process', 'koa', 'sqlite', 'electron'];
const BACKEND_KINDS = AgentConfigSchema.options.map((o) => String(o.shape.kind.value));

describe('layering', () => {
  it('finds the sources it checks', () => {
    expect(CORE.length).toBeGreaterThanOrEqual(5);
    expect(FILES.some((f) => f.rel === 'wiring.ts')).toBe(true);
  });

  it('domain/ and ports.ts never speak of a mechanism (ACP, session, prompt, stdio, process, ...)', () => {
    const violations = CORE.flatMap(({ rel, source }) =>
      codeWords(source).flatMap(({ words, raw, line }) =>
        FORBIDDEN_IN_CORE.filter((w) => words.includes(w)).map(
          (w) =>
            `main/${rel}:${line}: "${raw}" names "${w}"; domain/ and ports.ts speak only of tasks, agents and turns`,
        ),
      ),
    );
    expect(violations).toEqual([]);
  });

  it('every file under main/ belongs to a layer of the table', () => {
    const unplaced = FILES.filter((f) => !layerOf(f.rel)).map(
      (f) => `main/${f.rel}: in no layer; place it in ARCHITECTURE.md and in this test's table`,
    );
    expect(unplaced).toEqual([]);
  });

  it('every import follows the import direction', () => {
    const violations = FILES.flatMap(({ rel, source }) => {
      const layer = layerOf(rel);
      if (!layer) return [];
      return importsOf(source).flatMap((site) => {
        const broken = verdict(rel, layer, site);
        return broken ? [`main/${rel}:${site.line}: import '${site.specifier}': ${broken}`] : [];
      });
    });
    expect(violations).toEqual([]);
  });

  it('electron is imported nowhere but main/shell', () => {
    const outside = FILES.filter((f) => !f.rel.startsWith('shell/')).flatMap(({ rel, source }) =>
      importsOf(source)
        .filter((s) => packageOf(s.specifier) === 'electron')
        .map(
          (s) =>
            `main/${rel}:${s.line}: electron outside main/shell (requiring it outside Electron tries a download and throws)`,
        ),
    );
    expect(outside).toEqual([]);
  });
});

describe('a new backend is one new file', () => {
  // createBackend lives in the part of wiring that assembles agents.
  const wiring = FILES.find((f) => f.rel === 'wiring-agents.ts')!;

  function createBackendCases(): { kind: string; line: number; constructs: string[] }[] {
    let fn: ts.FunctionDeclaration | undefined;
    walk(wiring.source, (n) => {
      if (ts.isFunctionDeclaration(n) && n.name?.text === 'createBackend') fn = n;
    });
    if (!fn) throw new Error('main/wiring-agents.ts has no function createBackend');
    const cases: { kind: string; line: number; constructs: string[] }[] = [];
    walk(fn, (n) => {
      if (ts.isCaseClause(n) && ts.isStringLiteral(n.expression)) {
        const constructs: string[] = [];
        for (const statement of n.statements) {
          walk(statement, (m) => {
            if (ts.isNewExpression(m) && ts.isIdentifier(m.expression)) constructs.push(m.expression.text);
          });
        }
        cases.push({ kind: n.expression.text, line: lineOf(wiring.source, n), constructs });
      }
    });
    return cases;
  }

  it('the kinds of AgentConfigSchema are exactly the cases of createBackend in wiring-agents.ts', () => {
    expect(BACKEND_KINDS.length).toBeGreaterThanOrEqual(2);
    expect(
      createBackendCases()
        .map((c) => c.kind)
        .sort(),
    ).toEqual([...BACKEND_KINDS].sort());
  });

  it('each case constructs a class imported from main/backends/', () => {
    const fromBackends = new Map<string, string>();
    for (const site of importsOf(wiring.source)) {
      if (!site.specifier.startsWith('./backends/')) continue;
      walk(wiring.source, (n) => {
        if (
          ts.isImportDeclaration(n) &&
          ts.isStringLiteral(n.moduleSpecifier) &&
          n.moduleSpecifier.text === site.specifier
        ) {
          const named = n.importClause?.namedBindings;
          if (named && ts.isNamedImports(named))
            for (const e of named.elements) fromBackends.set(e.name.text, site.specifier);
        }
      });
    }
    const broken = createBackendCases()
      .filter((c) => !c.constructs.some((name) => fromBackends.has(name)))
      .map(
        (c) =>
          `main/wiring-agents.ts:${c.line}: case '${c.kind}' constructs no class from main/backends/ (${c.constructs.join(', ') || 'nothing'})`,
      );
    expect(broken).toEqual([]);
  });

  it('domain/, ports.ts and runtime/ name no backend kind', () => {
    const terms = BACKEND_KINDS.map((k) => k.toLowerCase().replace(/[^a-z0-9]/g, ''));
    const core = FILES.filter(
      (f) => f.rel.startsWith('domain/') || f.rel === 'ports.ts' || f.rel.startsWith('runtime/'),
    );
    const violations = core.flatMap(({ rel, source }) =>
      codeWords(source).flatMap(({ words, raw, line }) =>
        terms
          .filter((t) => spells(words, t))
          .map(
            (t) =>
              `main/${rel}:${line}: "${raw}" names the backend kind "${t}"; kinds belong in backends/, schema/config.ts and wiring-agents.ts`,
          ),
      ),
    );
    expect(violations).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('tells import kinds and layers apart', () => {
    const at = (specifier: string, typeOnly = false) => ({ specifier, typeOnly, line: 1 });
    expect(verdict('domain/task.ts', 'domain', at('node:fs'))).toMatch(/node builtins/);
    expect(verdict('runtime/x.ts', 'runtime', at('../backends/acp.js'))).toMatch(/may not import backends/);
    expect(verdict('transport/x.ts', 'transport', at('../runtime/dispatcher.js', true))).toBeUndefined();
    expect(verdict('transport/x.ts', 'transport', at('../runtime/dispatcher.js'))).toMatch(/only types/);
    expect(verdict('transport/x.ts', 'transport', at('koa'))).toMatch(/only be imported by transport\/http\.ts/);
    expect(verdict('transport/http.ts', 'transport', at('koa'))).toBeUndefined();
    expect(verdict('cli/send.ts', 'cli', at('../wiring.js'))).toMatch(/only from cli\/commands\/serve\.ts/);
    expect(verdict('cli/commands/serve.ts', 'cli', at('../../wiring.js'))).toBeUndefined();
    expect(verdict('wiring.ts', 'wiring', at('./shell/app.js'))).toMatch(/may not import shell/);
    expect(verdict('shell/x.ts', 'shell', at('../schema/ipc.js'))).toBeUndefined();
    expect(verdict('shell/x.ts', 'shell', at('../schema/config.js'))).toMatch(/schema\/config\.ts/);
    expect(verdict('ports.ts', 'ports', at('./domain/task.js'))).toMatch(/only types/);
  });

  it('reads words and spelled kinds from identifiers', () => {
    expect(wordsOf('AcpBackend')).toEqual(['acp', 'backend']);
    expect(wordsOf('withDecisionContract')).toEqual(['with', 'decision', 'contract']);
    expect(spells(wordsOf('SubprocessCliAgent'), 'subprocesscli')).toBe(true);
    expect(spells(wordsOf('subprocess_cli'), 'subprocesscli')).toBe(true);
    expect(spells(wordsOf('processCount'), 'subprocesscli')).toBe(false);
    const source = ts.createSourceFile(
      'x.ts',
      "// acp session\nconst a = 'a prompt in prose'; const kind = 'acp';",
      ts.ScriptTarget.Latest,
      true,
    );
    expect(codeWords(source).flatMap((w) => w.words)).toEqual(['a', 'kind', 'acp']);
  });
});
