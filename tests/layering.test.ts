/**
 * The layering of docs/architecture.md#what-may-import-what, held by a test: the rules are data in
 * tests/layering/rules.ts, the checker is tests/layering/checker.ts and globals.ts. Each violation prints
 * `file:line: rule`. tests/layering/planted.test.ts feeds the same checker source text that breaks one rule
 * each, so every hole it closes stays closed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AgentConfigSchema } from '../main/schema/config.js';
import {
  ROOT,
  codeWords,
  importViolations,
  importsOf,
  layerOf,
  lineOf,
  packageOf,
  parse,
  readSource,
  sourceFiles,
  spells,
  verdict,
  walk,
  wordsOf,
} from './layering/checker.js';
import { domainCompilerOptions, globalUses, globalViolations, programOf } from './layering/globals.js';
import { FORBIDDEN_IN_CORE, PLACES, RULES, SCANNED } from './layering/rules.js';

const FILES = SCANNED.flatMap(sourceFiles).map(readSource);
const TEXTS = FILES.map(({ rel, source }) => ({ rel, text: source.text }));
const CORE = FILES.filter((f) => f.rel.startsWith('main/domain/') || f.rel === 'main/ports.ts');
const BACKEND_KINDS = AgentConfigSchema.options.map((o) => String(o.shape.kind.value));

describe('layering', () => {
  it('finds the sources it checks, in main/, preload/ and renderer/', () => {
    expect(CORE.length).toBeGreaterThanOrEqual(5);
    expect(FILES.some((f) => f.rel === 'main/wiring/wiring.ts')).toBe(true);
    expect(FILES.filter((f) => layerOf(f.rel) === 'renderer').length).toBeGreaterThanOrEqual(3);
    expect(FILES.filter((f) => layerOf(f.rel) === 'preload').length).toBeGreaterThanOrEqual(1);
  });

  it('domain/ and ports.ts never speak of a mechanism (ACP, session, prompt, stdio, process, ...)', () => {
    const violations = CORE.flatMap(({ rel, source }) =>
      codeWords(source).flatMap(({ words, raw, line }) =>
        FORBIDDEN_IN_CORE.filter((w) => words.includes(w)).map(
          (w) => `${rel}:${line}: "${raw}" names "${w}"; domain/ and ports.ts speak only of tasks, agents and turns`,
        ),
      ),
    );
    expect(violations).toEqual([]);
  });

  it('every scanned file belongs to a layer of the table', () => {
    const unplaced = FILES.filter((f) => !layerOf(f.rel)).map(
      (f) => `${f.rel}: in no layer; place it in docs/architecture.md and in tests/layering/rules.ts`,
    );
    expect(unplaced).toEqual([]);
  });

  it('every path the rules name exists (a moved file cannot silently lose its allowance)', () => {
    const paths = [
      ...Object.keys(PLACES),
      ...Object.values(RULES).flatMap((r) => [
        ...r.imports,
        ...(r.typeImports ?? []),
        ...(r.packages ?? []).flatMap((p) => (typeof p === 'string' ? [] : p.only)),
        ...Object.values(r.onlyFrom ?? {}).flat(),
      ]),
    ].filter((p) => p.includes('/'));
    expect(paths.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it('every import follows the import direction (main/, preload/, renderer/)', () => {
    expect(FILES.flatMap(importViolations)).toEqual([]);
  });

  it('domain/, ports.ts, schema/ and runtime/ use no global that reaches the outside world; renderer/ none of Node', () => {
    expect(globalViolations(TEXTS)).toEqual([]);
  });

  it('electron is imported nowhere but main/shell and preload/', () => {
    const outside = FILES.filter((f) => !f.rel.startsWith('main/shell/') && !f.rel.startsWith('preload/')).flatMap(
      ({ rel, source }) =>
        importsOf(source)
          .filter((s) => packageOf(s.specifier) === 'electron')
          .map(
            (s) =>
              `${rel}:${s.line}: electron outside main/shell (requiring it outside Electron tries a download and throws)`,
          ),
    );
    expect(outside).toEqual([]);
  });

  it('domain/ type-checks with main/domain/tsconfig.json: no Node or DOM globals', () => {
    const options = domainCompilerOptions();
    expect(options.types).toEqual([]);
    expect(options.lib?.some((l) => /dom/i.test(l))).toBe(false);
    const domain = FILES.filter((f) => layerOf(f.rel) === 'domain').map(({ rel, source }) => ({
      rel,
      text: source.text,
    }));
    const diagnostics = ts.getPreEmitDiagnostics(programOf(domain, options));
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });
});

describe('a new backend is one new file', () => {
  /** The composition-root file that holds `createBackend` (wiring.ts, or a file split from it). */
  function createBackend(): { rel: string; source: ts.SourceFile; fn: ts.FunctionDeclaration } {
    for (const file of FILES.filter((f) => layerOf(f.rel) === 'wiring')) {
      let fn: ts.FunctionDeclaration | undefined;
      walk(file.source, (n) => {
        if (ts.isFunctionDeclaration(n) && n.name?.text === 'createBackend') fn = n;
      });
      if (fn) return { ...file, fn };
    }
    throw new Error('no file of the wiring layer has a function createBackend');
  }

  function createBackendCases(): { kind: string; line: number; constructs: string[] }[] {
    const { source, fn } = createBackend();
    const cases: { kind: string; line: number; constructs: string[] }[] = [];
    walk(fn, (n) => {
      if (ts.isCaseClause(n) && ts.isStringLiteral(n.expression)) {
        const constructs: string[] = [];
        for (const statement of n.statements) {
          walk(statement, (m) => {
            if (ts.isNewExpression(m) && ts.isIdentifier(m.expression)) constructs.push(m.expression.text);
          });
        }
        cases.push({ kind: n.expression.text, line: lineOf(source, n), constructs });
      }
    });
    return cases;
  }

  it('the kinds of AgentConfigSchema are exactly the cases of createBackend', () => {
    expect(BACKEND_KINDS.length).toBeGreaterThanOrEqual(2);
    expect(
      createBackendCases()
        .map((c) => c.kind)
        .sort(),
    ).toEqual([...BACKEND_KINDS].sort());
  });

  it('each case constructs a class imported from main/backends/', () => {
    const { rel, source } = createBackend();
    const fromBackends = new Set<string>();
    walk(source, (n) => {
      if (!ts.isImportDeclaration(n) || !ts.isStringLiteral(n.moduleSpecifier)) return;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), n.moduleSpecifier.text));
      const named = n.importClause?.namedBindings;
      if (layerOf(target.replace(/\.js$/, '.ts')) === 'backends' && named && ts.isNamedImports(named))
        for (const e of named.elements) fromBackends.add(e.name.text);
    });
    const broken = createBackendCases()
      .filter((c) => !c.constructs.some((name) => fromBackends.has(name)))
      .map(
        (c) =>
          `${rel}:${c.line}: case '${c.kind}' constructs no class from main/backends/ (${c.constructs.join(', ') || 'nothing'})`,
      );
    expect(broken).toEqual([]);
  });

  it('domain/, ports.ts and runtime/ name no backend kind', () => {
    const terms = BACKEND_KINDS.map((k) => k.toLowerCase().replace(/[^a-z0-9]/g, ''));
    const core = FILES.filter((f) => ['domain', 'ports', 'runtime'].includes(layerOf(f.rel) ?? ''));
    const violations = core.flatMap(({ rel, source }) =>
      codeWords(source).flatMap(({ words, raw, line }) =>
        terms
          .filter((t) => spells(words, t))
          .map(
            (t) =>
              `${rel}:${line}: "${raw}" names the backend kind "${t}"; kinds belong in backends/, schema/config.ts and wiring.ts`,
          ),
      ),
    );
    expect(violations).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('tells import kinds and layers apart', () => {
    const at = (specifier: string, typeOnly = false) => ({ specifier, typeOnly, line: 1 });
    expect(verdict('main/domain/task.ts', 'domain', at('node:fs'))).toMatch(/node builtins/);
    expect(verdict('main/runtime/x.ts', 'runtime', at('../backends/acp.js'))).toMatch(/may not import backends/);
    expect(verdict('main/transport/x.ts', 'transport', at('../runtime/dispatcher.js', true))).toBeUndefined();
    expect(verdict('main/transport/x.ts', 'transport', at('../runtime/dispatcher.js'))).toMatch(/only types/);
    expect(verdict('main/transport/x.ts', 'transport', at('koa'))).toMatch(/only be imported by main\/transport\/http/);
    expect(verdict('main/transport/http.ts', 'transport', at('koa'))).toBeUndefined();
    expect(verdict('main/cli/send.ts', 'cli', at('../wiring/wiring.js'))).toMatch(
      /only from main\/cli\/commands\/serve\.ts/,
    );
    expect(verdict('main/cli/commands/serve.ts', 'cli', at('../../wiring/wiring.js'))).toBeUndefined();
    expect(verdict('main/wiring/wiring.ts', 'wiring', at('../shell/app.js'))).toMatch(/may not import shell/);
    expect(verdict('main/shell/x.ts', 'shell', at('../schema/ipc.js'))).toBeUndefined();
    expect(verdict('main/shell/x.ts', 'shell', at('../schema/config.js'))).toMatch(/schema\/config\.ts/);
    expect(verdict('main/ports.ts', 'ports', at('./domain/task.js'))).toMatch(/only types/);
  });

  it('places files by folder, so sub-folders keep their layer', () => {
    expect(layerOf('main/backends/acp/session.ts')).toBe('backends');
    expect(layerOf('main/cli/doctor/probe.ts')).toBe('cli');
    expect(layerOf('renderer/parts/card.ts')).toBe('renderer');
    expect(layerOf('main/ports.ts')).toBe('ports');
    expect(layerOf('main/elsewhere.ts')).toBeUndefined();
    // A sub-folder keeps a file's allowance when the rule names its folder.
    expect(
      verdict('main/runtime/queues/x.ts', 'runtime', { specifier: '../../domain/task.js', typeOnly: false, line: 1 }),
    ).toBeUndefined();
  });

  it('reads words and spelled kinds from identifiers', () => {
    expect(wordsOf('AcpBackend')).toEqual(['acp', 'backend']);
    expect(wordsOf('withDecisionContract')).toEqual(['with', 'decision', 'contract']);
    expect(spells(wordsOf('SubprocessCliAgent'), 'subprocesscli')).toBe(true);
    expect(spells(wordsOf('subprocess_cli'), 'subprocesscli')).toBe(true);
    expect(spells(wordsOf('processCount'), 'subprocesscli')).toBe(false);
    const source = parse('x.ts', "// acp session\nconst a = 'a prompt in prose'; const kind = 'acp';").source;
    expect(codeWords(source).flatMap((w) => w.words)).toEqual(['a', 'kind', 'acp']);
  });

  it('tells a global from a local, a property name and a type', () => {
    const uses = globalUses([
      {
        rel: 'main/domain/planted.ts',
        text: [
          'const fetch = (u: string) => u;',
          'fetch("local");',
          'const o = { process: 1, setTimeout };',
          'o.process;',
          'type T = typeof process;',
          'export const n: T | undefined = undefined;',
          'export const m = Math.max(1, 2);',
        ].join('\n'),
      },
    ]).get('main/domain/planted.ts')!;
    expect(uses.map((u) => `${u.name}:${u.ecmascript}`).sort()).toEqual([
      'Math:true',
      'setTimeout:false',
      'undefined:true',
    ]);
  });
});
