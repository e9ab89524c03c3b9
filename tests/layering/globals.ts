/**
 * The globals check behind tests/layering.test.ts: which globals a file uses as values, resolved with the
 * compiler's binder against main/domain/tsconfig.json's library (ECMAScript only), judged by rules.ts.
 */
import path from 'node:path';
import ts from 'typescript';
import { ROOT, isValueReference, layerOf, lineOf } from './checker.js';
import { ESCAPES, RULES, type GlobalsRule, type Layer } from './rules.js';

export const DOMAIN_TSCONFIG = path.join(ROOT, 'main/domain/tsconfig.json');

/** The compiler options of main/domain/tsconfig.json (its `lib` is what "ECMAScript globals" means here). */
export function domainCompilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(DOMAIN_TSCONFIG, (f) => ts.sys.readFile(f));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(DOMAIN_TSCONFIG)).options;
}

const libCache = new Map<string, ts.SourceFile | undefined>();

/**
 * A program over in-memory sources (paths from the repo root) with the given options; the default library
 * files come from disk, parsed once per test file.
 */
export function programOf(files: { rel: string; text: string }[], options: ts.CompilerOptions): ts.Program {
  const host = ts.createCompilerHost(options);
  const byPath = new Map(files.map((f) => [path.join(ROOT, f.rel), f.text]));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = byPath.get(path.resolve(fileName));
    if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
    if (!libCache.has(fileName))
      libCache.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return libCache.get(fileName);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => byPath.has(path.resolve(f)) || fileExists(f);
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => byPath.get(path.resolve(f)) ?? readFile(f);
  return ts.createProgram({ rootNames: [...byPath.keys()], options, host });
}

/** Type positions never reach the outside world: skip types, interfaces, type aliases, `implements`. */
function isTypeOnlyNode(n: ts.Node): boolean {
  return (
    ts.isTypeNode(n) ||
    ts.isInterfaceDeclaration(n) ||
    ts.isTypeAliasDeclaration(n) ||
    (ts.isHeritageClause(n) && n.token === ts.SyntaxKind.ImplementsKeyword) ||
    ts.isImportDeclaration(n) ||
    ts.isExportDeclaration(n)
  );
}

export interface GlobalUse {
  name: string;
  line: number;
  /** Declared by the ECMAScript library (lib files of the options), rather than by Node or the DOM. */
  ecmascript: boolean;
}

/**
 * The globals each file uses as values: names declared nowhere in the file. Resolved with the compiler's
 * binder, so a local `const fetch = ...` is not a global and `{ fetch }` (shorthand) is. Imports are not
 * followed (noResolve): an imported name is a local binding.
 */
export function globalUses(files: { rel: string; text: string }[]): Map<string, GlobalUse[]> {
  const options = { ...domainCompilerOptions(), noResolve: true, noEmit: true };
  const program = programOf(files, options);
  const checker = program.getTypeChecker();
  const out = new Map<string, GlobalUse[]>();
  for (const { rel } of files) {
    const source = program.getSourceFile(path.join(ROOT, rel))!;
    const uses: GlobalUse[] = [];
    const visit = (n: ts.Node): void => {
      if (isTypeOnlyNode(n)) return;
      if (ts.isMetaProperty(n) && n.keywordToken === ts.SyntaxKind.ImportKeyword)
        uses.push({ name: 'import.meta', line: lineOf(source, n), ecmascript: false });
      if (ts.isIdentifier(n) && isValueReference(n)) {
        const symbol = ts.isShorthandPropertyAssignment(n.parent)
          ? checker.getShorthandAssignmentValueSymbol(n.parent)
          : checker.getSymbolAtLocation(n);
        const declarations = symbol?.declarations ?? [];
        if (!declarations.some((d) => d.getSourceFile() === source)) {
          // No symbol: declared by no library of the options. A symbol without declarations: `undefined`,
          // `arguments`, `globalThis` — the language's own.
          const ecmascript =
            !!symbol && declarations.every((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()));
          uses.push({ name: n.text, line: lineOf(source, n), ecmascript });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
    out.set(rel, uses);
  }
  return out;
}

/** Why one global use breaks the rule, or undefined. */
export function globalVerdict(layer: Layer, rule: GlobalsRule, use: GlobalUse): string | undefined {
  if ('deny' in rule) return rule.deny.includes(use.name) ? `${layer}/ may not use the global ${use.name}` : undefined;
  if (use.name === 'import.meta') return `${layer}/ may not use import.meta: it reaches files and modules`;
  if (ESCAPES.includes(use.name)) return `${layer}/ may not use ${use.name}: it reaches any global or any code by name`;
  if (use.ecmascript || rule.plus.includes(use.name)) return undefined;
  return `${layer}/ may not use the global ${use.name}: only ECMAScript's own${rule.plus.length ? ` and ${rule.plus.join(', ')}` : ''} (no I/O here)`;
}

/** Every global use that breaks its layer's rule, over the given files (one compiler program). */
export function globalViolations(files: { rel: string; text: string }[]): string[] {
  const checked = files.filter((f) => {
    const layer = layerOf(f.rel);
    return layer && RULES[layer].globals;
  });
  const uses = globalUses(checked);
  return checked.flatMap(({ rel }) => {
    const layer = layerOf(rel)!;
    return (uses.get(rel) ?? []).flatMap((use) => {
      const broken = globalVerdict(layer, RULES[layer].globals!, use);
      return broken ? [`${rel}:${use.line}: ${broken}`] : [];
    });
  });
}
