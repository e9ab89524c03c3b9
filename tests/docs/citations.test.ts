/**
 * The tree stands on its own: no file cites a document that is not in the repository, no comment cites
 * the history of the work instead of its intent, and every anchor of a docs page a comment cites is a
 * heading of that page (citations.ts says what counts). The planted cases prove each check can fail.
 */
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  brokenDocCitations,
  commentsOf,
  historyCitations,
  outsideCitations,
  ROOT,
  slug,
  sourceFiles,
  type SourceFile,
} from './citations.js';
import path from 'node:path';

const FILES = sourceFiles();

function planted(rel: string, text: string): SourceFile {
  return { rel, text, comments: commentsOf(rel, text) };
}

describe('the tree cites only what is in it', () => {
  it('reads every folder it checks, comments included', () => {
    expect(FILES.some((f) => f.rel === 'main/wiring/wiring.ts')).toBe(true);
    expect(FILES.some((f) => f.rel === 'resources/cli/contactor')).toBe(true);
    expect(FILES.find((f) => f.rel === 'main/wiring/wiring.ts')!.comments.length).toBeGreaterThan(3);
  });

  it('no file cites a design document from outside the repository', () => {
    expect(FILES.flatMap(outsideCitations)).toEqual([]);
  });

  it('no comment cites an issue number, a judgement, a seed note or a quoted design line', () => {
    expect(FILES.flatMap(historyCitations)).toEqual([]);
  });

  it('every anchor of a docs page a comment cites is a heading of that page', () => {
    expect(FILES.flatMap((f) => brokenDocCitations(f))).toEqual([]);
    // The contract's sections are cited the most: their anchors are what comments were pointed at.
    for (const section of ['streaming', 'error-codes', 'agent-environment', 'cli', 'files-and-places'])
      expect(anchorsOf(path.join(ROOT, 'docs/contract.md')).has(section)).toBe(true);
  });
});

describe('the checks catch what they are for (planted)', () => {
  it('a cited outside file, in a comment or in a message', () => {
    const doc = ['CONTRACT', 'md'].join('.');
    expect(outsideCitations(planted('main/x.ts', `// see ${doc} "Streaming"\nexport const a = 1;\n`))).toHaveLength(1);
    expect(outsideCitations(planted('main/x.ts', `throw new Error('see ../${'shared'}/design/x.md');\n`))).toHaveLength(
      1,
    );
  });

  it('history in a comment, in every comment form, but not in code or test data', () => {
    const issue = ['Issue', '16 item 3'].join(' ');
    const forms = [
      `/** ${issue}: the pid. */\nexport const a = 1;\n`,
      `export const a = 1; // as ${issue.toLowerCase()} found\n`,
      `const b = {\n  /* (item 9) */ c: 1,\n};\n`,
      `/** ${['Seed', ''].join(':')} a non-zero exit fails. */\nexport function f(): void {}\n`,
      `// said on its card ("${String.fromCodePoint(0x5173, 0x952e)}")\n`,
    ];
    for (const text of forms) expect(historyCitations(planted('main/x.ts', text)), text).toHaveLength(1);
    expect(historyCitations(planted('resources/cli/contactor', `#!/bin/sh\n# ${issue}\necho ok\n`))).toHaveLength(1);
    expect(historyCitations(planted('build/installer.nsh', `; ${issue}\n`))).toHaveLength(1);
    // Strings are data: a path with Chinese characters in a test is not a quoted design line.
    expect(
      historyCitations(planted('tests/x.test.ts', `const p = 'C:\\\\${String.fromCodePoint(0x9879)} dir';\n`)),
    ).toEqual([]);
  });

  it('a cited anchor or document that does not exist', () => {
    expect(brokenDocCitations(planted('main/x.ts', '// docs/contract.md#no-such-section\n'))).toHaveLength(1);
    expect(brokenDocCitations(planted('main/x.ts', '// docs/nowhere.md#streaming\n'))).toHaveLength(1);
    expect(
      brokenDocCitations(planted('main/x.ts', '// docs/contract.md#streaming, SECURITY.md#agent-processes\n')),
    ).toEqual([]);
  });

  it('anchors follow GitHub: punctuation dropped, spaces to hyphens', () => {
    expect(slug('Limits at a glance (config.yaml)')).toBe('limits-at-a-glance-configyaml');
    expect(slug('`http_api`: an OpenAI-compatible chat-completions server')).toBe(
      'http_api-an-openai-compatible-chat-completions-server',
    );
  });
});
