/**
 * What the tree may cite: the repository explains itself, so comments point at its own documents
 * (docs/*.md, SECURITY.md, README.md, SKILL.md, with `#anchor` = a heading there) and say the intent in
 * words. Files that are not in the repository and the history of the work (issue numbers, design notes
 * quoted in another language) are not citations a reader can follow.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CHECKED_FOLDERS = ['main', 'tests', 'renderer', 'preload', 'bench', 'scripts', 'resources', 'build'];

/** Design inputs that live outside the repository; named in pieces so this file does not cite them. */
const SHARED = 'shared';
const OUTSIDE_FILES = [
  new RegExp(['CONTRACT', 'ARCHITECTURE', 'STYLE'].map((n) => `\\b${n}\\.md\\b`).join('|')),
  new RegExp(`\\b${SHARED}/(design|reference)\\b`),
];

/** History instead of intent: issue numbers, numbered design judgements, seed notes, quoted design lines. */
const HISTORY: readonly { what: string; pattern: RegExp }[] = [
  { what: 'an issue number', pattern: /\bissues? #?\d+/i },
  { what: 'an item of an issue', pattern: /\(items? \d+[^)]*\)/i },
  { what: 'a design judgement', pattern: /\bjudgements? \d+/i },
  { what: 'a seed note', pattern: /\bseed:/i },
  { what: 'a line quoted in Chinese', pattern: /[\u4e00-\u9fff]/u },
];

/** A citation of one of the repository's documents, with its anchor when it has one. */
const DOC_CITATION = /\b((?:docs\/[\w.-]+|SECURITY|README|SKILL)\.md)(?:#([\w-]+))?/g;

const SCRIPT_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs']);
const BINARY_EXTENSIONS = new Set(['.png', '.ico', '.exe', '.json']);

export interface SourceFile {
  rel: string;
  text: string;
  /** The comments, each with the line it starts on. */
  comments: { line: number; text: string }[];
}

/**
 * Output the bench writes while tests run (gitignored): bundles it built, and `tests/bench` making and removing
 * its own build folder there, which a walk beside it met half gone (ENOENT).
 */
const GENERATED = new Set(['bench/results']);

const relOf = (root: string, full: string): string => path.relative(root, full).split(path.sep).join('/');

export function sourceFiles(root = ROOT, folders = CHECKED_FOLDERS): SourceFile[] {
  const files: SourceFile[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !GENERATED.has(relOf(root, full))) visit(full);
        continue;
      }
      if (BINARY_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) continue;
      const rel = relOf(root, full);
      const text = readFileSync(full, 'utf8');
      files.push({ rel, text, comments: commentsOf(rel, text) });
    }
  };
  for (const folder of folders) if (existsSync(path.join(root, folder))) visit(path.join(root, folder));
  return files;
}

/** The comments of a file: exact for JavaScript and TypeScript (the compiler's comment ranges), by line otherwise. */
export function commentsOf(rel: string, text: string): { line: number; text: string }[] {
  const ext = path.extname(rel).toLowerCase();
  if (SCRIPT_EXTENSIONS.has(ext)) return scriptComments(rel, text);
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  if (ext === '.c' || ext === '.css' || ext === '.html') {
    const blocks = /\/\*[\s\S]*?\*\/|<!--[\s\S]*?-->|(?<![:"'])\/\/[^\n]*/g;
    return [...text.matchAll(blocks)].map((m) => ({ line: lineOf(m.index), text: m[0] }));
  }
  // Shell, batch, NSIS, YAML: whole-line comments.
  return text
    .split('\n')
    .map((line, i) => ({ line: i + 1, text: line }))
    .filter(({ text: l }) => /^\s*(#|;|::|rem\b|REM\b|\/\/)/.test(l));
}

function scriptComments(rel: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, { line: number; text: string }>();
  const add = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? [])
      if (!seen.has(r.pos))
        seen.set(r.pos, { line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
  };
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  // A shebang is not a comment the compiler reports; the end-of-file comments hang off the last token.
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

/** Citations of files outside the repository, anywhere in the file (comments, messages, data). */
export function outsideCitations(file: SourceFile): string[] {
  return file.text
    .split('\n')
    .flatMap((line, i) =>
      OUTSIDE_FILES.some((p) => p.test(line))
        ? [`${file.rel}:${i + 1}: cites a file outside the repository: ${line.trim()}`]
        : [],
    );
}

/** History in comments: issue numbers, judgements, seed notes, quoted design lines. */
export function historyCitations(file: SourceFile): string[] {
  return file.comments.flatMap((c) =>
    HISTORY.filter(({ pattern }) => pattern.test(c.text)).map(
      ({ what }) =>
        `${file.rel}:${c.line}: a comment cites ${what}; say the intent or point at docs/: ${firstLine(c.text, what)}`,
    ),
  );
}

/** Citations of the repository's documents whose file or `#anchor` heading does not exist. */
export function brokenDocCitations(file: SourceFile, root = ROOT): string[] {
  return file.comments.flatMap((c) =>
    [...c.text.matchAll(DOC_CITATION)].flatMap(([cited, doc, anchor]) => {
      const docPath = path.join(root, doc!);
      if (!existsSync(docPath)) return [`${file.rel}:${c.line}: cites ${doc}, which is not in the repository`];
      if (anchor === undefined || anchorsOf(docPath).has(anchor)) return [];
      return [`${file.rel}:${c.line}: cites ${cited}, but ${doc} has no heading with that anchor`];
    }),
  );
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors GitHub gives a Markdown file's headings (lower case, punctuation dropped, spaces → '-'). */
export function anchorsOf(docPath: string): Set<string> {
  let anchors = anchorCache.get(docPath);
  if (!anchors) {
    anchors = new Set(
      readFileSync(docPath, 'utf8')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => slug(l.replace(/^#+ /, ''))),
    );
    anchorCache.set(docPath, anchors);
  }
  return anchors;
}

export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function firstLine(comment: string, what: string): string {
  const pattern = HISTORY.find((h) => h.what === what)!.pattern;
  return (comment.split('\n').find((l) => pattern.test(l)) ?? comment).trim().slice(0, 120);
}
