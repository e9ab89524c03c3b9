/**
 * The shape of the HTTP edge (docs/architecture.md#folders), read from the sources with the TypeScript compiler: the
 * request gate is called in one place, no two transport modules import each other, and server.ts builds
 * no transport object (wiring-http.ts does). Behaviour over HTTP: tests/integration/http-routes.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '..', '..', 'main');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const FILES = sourceFiles(MAIN).map((file) => ({
  rel: path.relative(MAIN, file).split(path.sep).join('/'),
  source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
}));

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

function line(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

/** Every import of `rel` (type-only ones too), as paths relative to main/, with whether it is type-only. */
function importsOf(rel: string, source: ts.SourceFile): { target: string; typeOnly: boolean }[] {
  const found: { target: string; typeOnly: boolean }[] = [];
  walk(source, (n) => {
    if (!ts.isImportDeclaration(n) || !ts.isStringLiteral(n.moduleSpecifier)) return;
    const spec = n.moduleSpecifier.text;
    const clause = n.importClause;
    const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
    const typeOnly =
      !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.elements.every((e) => e.isTypeOnly)));
    const target = spec.startsWith('.')
      ? path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)).replace(/\.js$/, '.ts')
      : spec;
    found.push({ target, typeOnly });
  });
  return found;
}

describe('the HTTP edge', () => {
  it('calls the request gate in exactly one place', () => {
    const calls = FILES.flatMap(({ rel, source }) => {
      const at: string[] = [];
      walk(source, (n) => {
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'gateRequest')
          at.push(`${rel}:${line(source, n)}`);
      });
      return at;
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^transport\/http\.ts:/);
  });

  it('has no two transport modules importing each other (types included)', () => {
    const transport = FILES.filter((f) => f.rel.startsWith('transport/'));
    const edges = new Set(
      transport.flatMap(({ rel, source }) => importsOf(rel, source).map(({ target }) => `${rel} -> ${target}`)),
    );
    const mutual = [...edges].filter((edge) => {
      const [from, to] = edge.split(' -> ') as [string, string];
      return from < to && edges.has(`${to} -> ${from}`);
    });
    expect(mutual).toEqual([]);
  });

  it('leaves every construction to wiring: server.ts imports no transport module and no node:http value', () => {
    const server = FILES.find((f) => f.rel === 'server.ts')!;
    const imports = importsOf('server.ts', server.source);
    expect(imports.filter(({ target }) => target.startsWith('transport/'))).toEqual([]);
    expect(imports.filter(({ target, typeOnly }) => target === 'node:http' && !typeOnly)).toEqual([]);
    const built: string[] = [];
    walk(server.source, (n) => {
      if (
        ts.isNewExpression(n) &&
        ts.isIdentifier(n.expression) &&
        !['Promise', 'Error', 'Date', 'Set'].includes(n.expression.text)
      )
        built.push(n.expression.text);
    });
    expect(built).toEqual([]);
  });
});
