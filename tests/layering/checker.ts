/**
 * The checker behind tests/layering.test.ts: reads sources with the TypeScript compiler (comments never count,
 * prose in strings is told apart from code) and judges them against rules.ts. Every function takes a path and
 * source text, so the tests feed it planted violations exactly as they feed it the tree.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { PLACES, RULES, type Layer } from './rules.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The layer of a file (path from the repo root, forward slashes): the longest place that holds it. */
export function layerOf(rel: string): Layer | undefined {
  let best: string | undefined;
  for (const place of Object.keys(PLACES)) {
    const holds = place.endsWith('/') ? rel.startsWith(place) : rel === place;
    if (holds && (!best || place.length > best.length)) best = place;
  }
  return best === undefined ? undefined : PLACES[best];
}

/** True when `target` is, or lies under, one entry of `list` (layer names, folders or files). */
function named(list: string[] | undefined, target: string, targetLayer: Layer): boolean {
  return !!list?.some((entry) =>
    entry.includes('/') ? (entry.endsWith('/') ? target.startsWith(entry) : target === entry) : entry === targetLayer,
  );
}

export interface Source {
  rel: string;
  source: ts.SourceFile;
}

export function parse(rel: string, text: string): Source {
  return { rel, source: ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true) };
}

export function sourceFiles(folder: string): string[] {
  const dir = path.join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const rel = `${folder}${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sourceFiles(`${rel}/`);
    return /\.(ts|mts|cts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

export function readSource(rel: string): Source {
  return parse(rel, readFileSync(path.join(ROOT, rel), 'utf8'));
}

export function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

export function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** A module a file loads or names for loading. `<computed>` / `<untracked>`: one the checker cannot read. */
export interface ImportSite {
  specifier: string;
  typeOnly: boolean;
  line: number;
  /** How it is loaded, for the message: `import`, `require`, `createRequire`, `getBuiltinModule`. */
  how?: string;
}

export const COMPUTED = '<computed>';
export const UNTRACKED = '<untracked>';

/**
 * Every way a file can load a module: static and dynamic `import`, `export ... from`, `import('x')` types,
 * `import x = require()`, `require()`, `createRequire(...)(...)` (directly, or through a const that holds its
 * result, under any local name), `.resolve()` on either, and `process.getBuiltinModule()`. A require function
 * used any other way (passed on, stored in an object) is reported as untracked: the checker cannot follow it.
 */
export function importsOf(source: ts.SourceFile): ImportSite[] {
  const sites: ImportSite[] = [];
  const at = (n: ts.Node, specifier: string, typeOnly: boolean, how = 'import') =>
    sites.push({ specifier, typeOnly, line: lineOf(source, n), how });
  const literal = (arg: ts.Expression | undefined) => (arg && ts.isStringLiteralLike(arg) ? arg.text : COMPUTED);

  // Local names of createRequire (`import { createRequire as cr } from 'node:module'`).
  const createRequireNames = new Set<string>();
  walk(source, (n) => {
    if (
      ts.isImportDeclaration(n) &&
      ts.isStringLiteral(n.moduleSpecifier) &&
      ['module', 'node:module'].includes(n.moduleSpecifier.text)
    ) {
      const bindings = n.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements)
          if ((e.propertyName ?? e.name).text === 'createRequire') createRequireNames.add(e.name.text);
    }
  });
  const isCreateRequire = (e: ts.Expression) =>
    (ts.isIdentifier(e) && createRequireNames.has(e.text)) ||
    (ts.isPropertyAccessExpression(e) && e.name.text === 'createRequire');
  const isCreateRequireCall = (e: ts.Expression): e is ts.CallExpression =>
    ts.isCallExpression(e) && isCreateRequire(e.expression);

  // Consts that hold a require function: `const req = createRequire(import.meta.url)`.
  const requireNames = new Set<string>(['require']);
  walk(source, (n) => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && isCreateRequireCall(n.initializer))
      requireNames.add(n.name.text);
  });
  const isRequireFn = (e: ts.Expression) => (ts.isIdentifier(e) && requireNames.has(e.text)) || isCreateRequireCall(e);
  const howOf = (e: ts.Expression) => (ts.isIdentifier(e) && e.text === 'require' ? 'require' : 'createRequire');

  walk(source, (n) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const clause = n.importClause;
      const names =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly || (!clause.name && !!names && names.length > 0 && names.every((e) => e.isTypeOnly)));
      at(n, n.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      at(n, n.moduleSpecifier.text, n.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      at(n, literal(n.moduleReference.expression), n.isTypeOnly, 'require');
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      at(n, n.argument.literal.text, true);
    } else if (ts.isCallExpression(n)) {
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) at(n, literal(n.arguments[0]), false);
      else if (isRequireFn(callee)) at(n, literal(n.arguments[0]), false, howOf(callee));
      else if (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'resolve' &&
        isRequireFn(callee.expression)
      )
        at(n, literal(n.arguments[0]), false, howOf(callee.expression));
      else if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'getBuiltinModule')
        at(n, literal(n.arguments[0]), false, 'getBuiltinModule');
    }
    // A require function that is neither called nor resolved at once, nor held in a const: untracked.
    const requireFn =
      (ts.isIdentifier(n) && requireNames.has(n.text) && !isDeclarationName(n) && isValueReference(n)) ||
      isCreateRequireCall(n as ts.Expression);
    const bareCreateRequire = isCreateRequire(n as ts.Expression) && !isImportName(n);
    if (requireFn && !calledOrResolved(n) && !(isCreateRequireCall(n as ts.Expression) && heldInConst(n)))
      at(n, UNTRACKED, false, 'require');
    else if (bareCreateRequire && !(ts.isCallExpression(n.parent) && n.parent.expression === n))
      at(n, UNTRACKED, false, 'createRequire');
  });
  return sites;
}

function isDeclarationName(n: ts.Identifier): boolean {
  return ts.isVariableDeclaration(n.parent) && n.parent.name === n;
}

function isImportName(n: ts.Node): boolean {
  return ts.isImportSpecifier(n.parent) || (ts.isPropertyAccessExpression(n.parent) && n.parent.name === n);
}

function calledOrResolved(n: ts.Node): boolean {
  const p = n.parent;
  if (ts.isCallExpression(p) && p.expression === n) return true;
  return (
    ts.isPropertyAccessExpression(p) &&
    p.expression === n &&
    p.name.text === 'resolve' &&
    ts.isCallExpression(p.parent) &&
    p.parent.expression === p
  );
}

function heldInConst(n: ts.Node): boolean {
  return (
    ts.isVariableDeclaration(n.parent) &&
    ts.isIdentifier(n.parent.name) &&
    ts.isVariableDeclarationList(n.parent.parent) &&
    (n.parent.parent.flags & ts.NodeFlags.Const) !== 0
  );
}

const BUILTINS = new Set(builtinModules);

export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Checks one import against the importing file's rule; returns the broken rule, or undefined. */
export function verdict(rel: string, layer: Layer, site: ImportSite): string | undefined {
  const rule = RULES[layer];
  const { specifier, typeOnly } = site;
  if (specifier === COMPUTED)
    return `${layer}/ loads a computed module name (${site.how}): the layering cannot be checked`;
  if (specifier === UNTRACKED)
    return `${layer}/ passes a ${site.how} function around: call it at once with a literal, or hold it in a const that is only called`;
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
  const target = path.posix
    .normalize(path.posix.join(path.posix.dirname(rel), specifier))
    .replace(/\.([mc]?)js$/, '.$1ts');
  if (target.startsWith('..')) return `${layer}/ imports ${specifier}, outside the repository`;
  const targetLayer = layerOf(target);
  if (!targetLayer) return `${specifier} resolves to ${target}, which is in no layer of the table`;
  if (targetLayer === layer && layer !== 'wiring') return undefined;
  const only = rule.onlyFrom?.[targetLayer];
  if (only && !only.includes(rel)) return `${layer}/ may import ${targetLayer} only from ${only.join(', ')}`;
  if (named(rule.imports, target, targetLayer)) return undefined;
  if (typeOnly && named(rule.typeImports, target, targetLayer)) return undefined;
  if (named(rule.typeImports, target, targetLayer))
    return `${layer}/ may import only types from ${target} (use \`import type\`)`;
  const allowed = [...rule.imports, ...(rule.typeImports ?? []).map((t) => `type ${t}`)].join(', ') || 'nothing';
  return `${layer}/ may not import ${targetLayer === 'schema' ? target : targetLayer} (allowed: ${allowed})`;
}

/** Every import of one file that breaks its layer's rule, as `file:line: import 'x': rule`. */
export function importViolations({ rel, source }: Source): string[] {
  const layer = layerOf(rel);
  if (!layer) return [];
  return importsOf(source).flatMap((site) => {
    const broken = verdict(rel, layer, site);
    return broken ? [`${rel}:${site.line}: ${site.how} '${site.specifier}': ${broken}`] : [];
  });
}

/** A name used as a value here (not a property name, a declaration's own name, a label or a type). */
export function isValueReference(n: ts.Identifier): boolean {
  const p = n.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === n) return false;
  if (ts.isQualifiedName(p)) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isSetAccessorDeclaration(p) ||
      ts.isEnumMember(p) ||
      ts.isPropertySignature(p) ||
      ts.isMethodSignature(p)) &&
    p.name === n
  )
    return false;
  if (ts.isBindingElement(p) && p.propertyName === n) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p))
    return false;
  return true;
}

/** Words of an identifier: `withDecisionContract` → with, decision, contract; `subprocess_cli` → subprocess, cli. */
export function wordsOf(identifier: string): string[] {
  return (identifier.match(/[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g) ?? []).map((w) => w.toLowerCase());
}

/**
 * The code words of a file: identifiers, and string literals that look like code (no spaces, e.g. a
 * discriminant or a module name). Strings with spaces are prose (messages, doc text) and do not count.
 */
export function codeWords(source: ts.SourceFile): { words: string[]; raw: string; line: number }[] {
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
export function spells(words: string[], term: string): boolean {
  for (let i = 0; i < words.length; i += 1) {
    let joined = '';
    for (let j = i; j < words.length && joined.length < term.length; j += 1) {
      joined += words[j];
      if (joined === term) return true;
    }
  }
  return false;
}
