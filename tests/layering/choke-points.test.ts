/**
 * Two choke points of docs/architecture.md#choke-points that a file could go around without importing anything
 * unusual: starting a child process, and deciding whether a path lies inside a folder. The first is found by
 * the checker's import reader (every way of loading `node:child_process`), the second by the shapes a
 * hand-made containment check takes (a prefix test against a folder, a `relative()` read for `..`). Each
 * allowance names its file and its reason; a planted violation of each shape proves the check finds it.
 */
import { describe, expect, it } from 'vitest';
import { importsOf, parse, readSource, sourceFiles, type Source } from './checker.js';

const SOURCES = ['main/', 'renderer/', 'preload/'].flatMap(sourceFiles);

/** The files that may start a process, each with what it starts. */
const PROCESS_STARTERS: Record<string, string> = {
  'main/backends/process/child-process.ts': 'every agent process (spawnChild), stopped through stop-all.ts',
  'main/backends/process/process-start.ts': "PowerShell's read of pids' start times on Windows, bounded by a timeout",
  'main/backends/process/process-tree.ts': 'taskkill /T on Windows, the tree stop itself',
  'main/backends/process/wsl-orphans.ts':
    "wsl.exe running the script that stops a killed run's leftovers in a distro, bounded by a timeout",
  'main/cli/command-runner.ts': "the CLI's short probes (wsl.exe, where.exe, wslpath), bounded by a timeout",
  'main/cli/bridge-client/launch-bridge.ts': 'the bridge itself, detached (contactor up)',
  'main/cli/commands/config.ts': "the person's own $EDITOR on config.yaml (contactor config edit)",
};

/** The files that may compute path containment's parts, each with why it is not a containment decision. */
const CONTAINMENT_SHAPES_ALLOWED: Record<string, string> = {
  'main/platform/path-containment.ts': 'the owner',
  'main/shell/low-risk-paths.ts':
    'reads the segment names below a folder already proven to contain the path (a protected name anywhere)',
};

const CHILD_PROCESS = new Set(['node:child_process', 'child_process']);

function processStarts({ rel, source }: Source): string[] {
  return importsOf(source)
    .filter((site) => !site.typeOnly && CHILD_PROCESS.has(site.specifier))
    .map((site) => `${rel}:${site.line}`);
}

/** A prefix test against a folder-like value, or a `relative()` whose result is read for `..`. */
const CONTAINMENT_SHAPES = [
  /\.startsWith\(\s*(normali[sz]e\w*\(|[\w.]*([Dd]ir|[Rr]oot|[Ff]older|[Ww]orkspace|[Hh]ome|[Pp]ath)\b)/,
  /\.relative\(/,
];

function containmentChecks({ rel, source }: Source): string[] {
  return source.text.split('\n').flatMap((line, i) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*')) return [];
    return CONTAINMENT_SHAPES.some((shape) => shape.test(code)) ? [`${rel}:${i + 1}: ${code}`] : [];
  });
}

describe('every child process starts in the files that own it', () => {
  it('no other file loads node:child_process', () => {
    const found = SOURCES.map(readSource).flatMap(processStarts);
    expect(found.map((site) => site.replace(/:\d+$/, '')).sort()).toEqual(Object.keys(PROCESS_STARTERS).sort());
  });

  it.each([
    ['an import', "import { execFile } from 'node:child_process';"],
    ['a dynamic import', "const cp = await import('node:child_process');"],
    ['a require', "const cp = require('child_process');"],
    ['getBuiltinModule', "const cp = process.getBuiltinModule('node:child_process');"],
  ])('finds a planted one: %s', (_how, line) => {
    expect(processStarts(parse('main/shell/planted.ts', `const x = 1;\n${line}\n`))).toEqual([
      'main/shell/planted.ts:2',
    ]);
  });
});

describe('whether a path lies inside a folder is decided in main/platform/path-containment.ts', () => {
  it('no other file tests a path against a folder by hand', () => {
    const found = SOURCES.filter((rel) => !(rel in CONTAINMENT_SHAPES_ALLOWED))
      .map(readSource)
      .flatMap(containmentChecks);
    expect(found).toEqual([]);
    for (const rel of Object.keys(CONTAINMENT_SHAPES_ALLOWED))
      expect(containmentChecks(readSource(rel)), rel).not.toEqual([]);
  });

  it.each([
    ['a prefix of a normalised folder', 'const inside = normalise(l.path).startsWith(normalise(p));'],
    ['a prefix of a workspace', 'if (!target.startsWith(workspace + path.sep)) return false;'],
    ['a prefix of a data dir', 'return file.startsWith(this.dataDir);'],
    ['a relative read for ..', "return !path.relative(root, target).startsWith('..');"],
  ])('finds a planted one: %s', (_shape, line) => {
    expect(containmentChecks(parse('main/runtime/planted.ts', `const x = 1;\n${line}\n`))).toEqual([
      `main/runtime/planted.ts:2: ${line}`,
    ]);
  });
});
