/**
 * The layering of ARCHITECTURE.md, held by a test ("Import direction"; judgement 9): the rules are data in
 * tests/layering/rules.ts, the checker is tests/layering/checker.ts. Each violation prints `file:line: rule`.
 * The planted violations at the end feed the same checker source text that breaks one rule each, so every
 * hole it closes stays closed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AgentConfigSchema } from '../main/schema/config.js';
import {
  ROOT,
  codeWords,
  domainCompilerOptions,
  globalUses,
  globalViolations,
  importViolations,
  importsOf,
  layerOf,
  lineOf,
  packageOf,
  parse,
  programOf,
  readSource,
  sourceFiles,
  spells,
  verdict,
  walk,
  wordsOf,
} from './layering/checker.js';
import { FORBIDDEN_IN_CORE, PLACES, RULES, SCANNED } from './layering/rules.js';

const FILES = SCANNED.flatMap(sourceFiles).map(readSource);
const TEXTS = FILES.map(({ rel, source }) => ({ rel, text: source.text }));
const CORE = FILES.filter((f) => f.rel.startsWith('main/domain/') || f.rel === 'main/ports.ts');
const BACKEND_KINDS = AgentConfigSchema.options.map((o) => String(o.shape.kind.value));

describe('layering', () => {
  it('finds the sources it checks, in main/, preload/ and renderer/', () => {
    expect(CORE.length).toBeGreaterThanOrEqual(5);
    expect(FILES.some((f) => f.rel === 'main/wiring.ts')).toBe(true);
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
      (f) => `${f.rel}: in no layer; place it in ARCHITECTURE.md and in tests/layering/rules.ts`,
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
    expect(verdict('main/cli/send.ts', 'cli', at('../wiring.js'))).toMatch(/only from main\/cli\/commands\/serve\.ts/);
    expect(verdict('main/cli/commands/serve.ts', 'cli', at('../../wiring.js'))).toBeUndefined();
    expect(verdict('main/wiring.ts', 'wiring', at('./shell/app.js'))).toMatch(/may not import shell/);
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

/** One source text that breaks one rule; the checker must report it, naming the line. */
function plantedImport(rel: string, text: string): string[] {
  return importViolations(parse(rel, text));
}

function plantedGlobals(rel: string, text: string): string[] {
  return globalViolations([{ rel, text }]);
}

describe('planted violations fail the checker', () => {
  it('createRequire(import.meta.url)(...) into stores/ from runtime/', () => {
    const text = [
      "import { createRequire } from 'node:module';",
      "const store = createRequire(import.meta.url)('../stores/sqlite.js');",
    ].join('\n');
    const found = plantedImport('main/runtime/planted.ts', text);
    expect(found).toContainEqual(
      expect.stringMatching(
        /^main\/runtime\/planted\.ts:2: createRequire '\.\.\/stores\/sqlite\.js': runtime\/ may not import stores/,
      ),
    );
  });

  it('createRequire under another name, held in a const, and its resolve()', () => {
    const text = [
      "import { createRequire as makeRequire } from 'node:module';",
      'const load = makeRequire(import.meta.url);',
      "export const a = load('../stores/memory.js');",
      "export const b = load.resolve('../backends/acp.js');",
    ].join('\n');
    const found = plantedImport('main/transport/planted.ts', text);
    expect(found).toContainEqual(
      expect.stringMatching(/:3: createRequire '\.\.\/stores\/memory\.js': transport\/ may not import stores/),
    );
    expect(found).toContainEqual(
      expect.stringMatching(/:4: createRequire '\.\.\/backends\/acp\.js': transport\/ may not import backends/),
    );
  });

  it('a require function passed on, and a computed module name', () => {
    const text = [
      "import { createRequire } from 'node:module';",
      'const load = createRequire(import.meta.url);',
      'export const loaders = { load };',
      'export const other = createRequire;',
      "export const c = load('../stores/' + 'memory.js');",
      "export const d = import(`../backends/${'acp'}.js`);",
    ].join('\n');
    const found = plantedImport('main/transport/planted.ts', text);
    expect(found).toContainEqual(expect.stringMatching(/:3: require '<untracked>'.*call it at once/));
    expect(found).toContainEqual(expect.stringMatching(/:4: createRequire '<untracked>'/));
    expect(found).toContainEqual(expect.stringMatching(/:5: createRequire '<computed>'.*cannot be checked/));
    expect(found).toContainEqual(expect.stringMatching(/:6: import '<computed>'/));
  });

  it('require(), import x = require() and process.getBuiltinModule() of a builtin in a no-I/O layer', () => {
    const text = [
      "const fs = require('node:fs');",
      "import os = require('node:os');",
      "const net = process.getBuiltinModule('node:net');",
    ].join('\n');
    const found = plantedImport('main/schema/planted.ts', text);
    expect(found).toEqual([
      expect.stringMatching(/:1: require 'node:fs': schema\/ may not use node builtins/),
      expect.stringMatching(/:2: require 'node:os': schema\/ may not use node builtins/),
      expect.stringMatching(/:3: getBuiltinModule 'node:net': schema\/ may not use node builtins/),
    ]);
  });

  it('process, fetch, console, a timer and import.meta in domain/', () => {
    const text = [
      'export const home = process.env.HOME;',
      "export const page = () => fetch('http://127.0.0.1:8791/');",
      "export const say = () => console.log('x');",
      'export const later = () => setTimeout(() => undefined, 1);',
      'export const here = import.meta.url;',
    ].join('\n');
    expect(plantedGlobals('main/domain/planted.ts', text)).toEqual([
      expect.stringMatching(/^main\/domain\/planted\.ts:1: domain\/ may not use the global process/),
      expect.stringMatching(/:2: domain\/ may not use the global fetch/),
      expect.stringMatching(/:3: domain\/ may not use the global console/),
      expect.stringMatching(/:4: domain\/ may not use the global setTimeout/),
      expect.stringMatching(/:5: domain\/ may not use import\.meta/),
    ]);
  });

  it('the ways around a name in domain/: globalThis, eval, new Function, a shorthand property', () => {
    const text = [
      'export const p = (globalThis as any).process;',
      "export const q = eval('process');",
      "export const r = new Function('return process')();",
      'export const s = { fetch };',
    ].join('\n');
    expect(plantedGlobals('main/domain/planted.ts', text)).toEqual([
      expect.stringMatching(/:1: domain\/ may not use globalThis/),
      expect.stringMatching(/:2: domain\/ may not use eval/),
      expect.stringMatching(/:3: domain\/ may not use Function/),
      expect.stringMatching(/:4: domain\/ may not use the global fetch/),
    ]);
  });

  it('process and fetch in runtime/ (its timers stay allowed)', () => {
    const text = [
      'export const t = setTimeout(() => undefined, 1);',
      'export const env = process.env;',
      "export const go = () => fetch('http://127.0.0.1/');",
    ].join('\n');
    expect(plantedGlobals('main/runtime/planted.ts', text)).toEqual([
      expect.stringMatching(/:2: runtime\/ may not use the global process/),
      expect.stringMatching(/:3: runtime\/ may not use the global fetch/),
    ]);
  });

  it('electron, a value import from main/ and Node in renderer/', () => {
    const text = [
      "import { ipcRenderer } from 'electron';",
      "import { IPC_CHANNELS } from '../main/schema/ipc.js';",
      "import { TERMINAL_STATES } from '../main/domain/task.js';",
      "import { readFileSync } from 'node:fs';",
      "import type { PendingItem } from '../main/schema/ipc.js';",
      "import type { TaskState } from '../main/domain/task.js';",
      "import type { Task } from '../main/ports.js';",
      'export const key = process.platform;',
    ].join('\n');
    expect(plantedImport('renderer/planted.ts', text)).toEqual([
      expect.stringMatching(
        /^renderer\/planted\.ts:1: import 'electron': renderer\/ may not import the package electron/,
      ),
      expect.stringMatching(
        /:2: import '\.\.\/main\/schema\/ipc\.js': renderer\/ may import only types from main\/schema\/ipc\.ts/,
      ),
      expect.stringMatching(
        /:3: import '\.\.\/main\/domain\/task\.js': renderer\/ may import only types from main\/domain\/task\.ts/,
      ),
      expect.stringMatching(/:4: import 'node:fs': renderer\/ may not use node builtins/),
      expect.stringMatching(/:7: import '\.\.\/main\/ports\.js': renderer\/ may not import ports/),
    ]);
    expect(plantedGlobals('renderer/planted.ts', text)).toEqual([
      expect.stringMatching(/:8: renderer\/ may not use the global process/),
    ]);
  });

  it('a value import from main/ beyond the channel names, and Node, in preload/', () => {
    const text = [
      "import { contextBridge } from 'electron';",
      "import { IPC_CHANNELS } from '../main/schema/ipc.js';",
      "import { AgentConfigSchema } from '../main/schema/config.js';",
      "import { createBridge } from '../main/wiring.js';",
      "import { spawn } from 'node:child_process';",
    ].join('\n');
    expect(plantedImport('preload/planted.ts', text)).toEqual([
      expect.stringMatching(
        /:3: import '\.\.\/main\/schema\/config\.js': preload\/ may not import main\/schema\/config\.ts/,
      ),
      expect.stringMatching(/:4: import '\.\.\/main\/wiring\.js': preload\/ may not import wiring/),
      expect.stringMatching(/:5: import 'node:child_process': preload\/ may not use node builtins/),
    ]);
  });

  it('a file planted outside every layer', () => {
    expect(layerOf('renderer/x.ts')).toBe('renderer');
    expect(layerOf('main/planted.ts')).toBeUndefined();
    expect(plantedImport('main/domain/planted.ts', "export * from '../planted.js';")).toEqual([
      expect.stringMatching(/resolves to main\/planted\.ts, which is in no layer/),
    ]);
  });

  it('the domain compiler setting rejects process, fetch, Buffer and the DOM', () => {
    const planted = {
      rel: 'main/domain/planted.ts',
      text: [
        'export const home = process.env.HOME;',
        "export const page = fetch('http://127.0.0.1/');",
        "export const bytes = Buffer.from('x');",
        'export const title = document.title;',
        'export const ok = [1, 2].at(-1);',
      ].join('\n'),
    };
    const diagnostics = ts
      .getPreEmitDiagnostics(programOf([planted], domainCompilerOptions()))
      .map(
        (d) =>
          `${d.file ? d.file.getLineAndCharacterOfPosition(d.start!).line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(diagnostics).toEqual([
      expect.stringMatching(/^1: Cannot find name 'process'/),
      expect.stringMatching(/^2: Cannot find name 'fetch'/),
      expect.stringMatching(/^3: Cannot find name 'Buffer'/),
      expect.stringMatching(/^4: Cannot find name 'document'/),
    ]);
  });

  it('`npm run check` runs the domain compiler setting', () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.check).toContain('tsc --noEmit -p main/domain/tsconfig.json');
  });
});
