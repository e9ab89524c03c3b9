/**
 * Planted violations: source text that breaks one layering rule each, fed to the same checker the tree goes
 * through (tests/layering.test.ts), so every hole once found and closed stays closed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, importViolations, layerOf, parse } from './checker.js';
import { domainCompilerOptions, globalViolations, programOf } from './globals.js';

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
      "import { createBridge } from '../main/wiring/wiring.js';",
      "import { spawn } from 'node:child_process';",
    ].join('\n');
    expect(plantedImport('preload/planted.ts', text)).toEqual([
      expect.stringMatching(
        /:3: import '\.\.\/main\/schema\/config\.js': preload\/ may not import main\/schema\/config\.ts/,
      ),
      expect.stringMatching(/:4: import '\.\.\/main\/wiring\/wiring\.js': preload\/ may not import wiring/),
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
