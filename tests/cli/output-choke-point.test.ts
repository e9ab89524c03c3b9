/**
 * The CLI's output layer (main/cli/render/output.ts) is the one way agent text reaches a terminal
 * (SECURITY.md#what-a-person-reads). Structurally: nothing else in main/cli writes to process.stdout or
 * process.stderr or calls console (each exception below says why it is one), and nothing in renderer/ puts
 * text into a page but renderer/page-text.ts. At run time: every method of the output marks the agent's
 * controls, the CLI's own colours pass, and styling cannot be glued to agent text around the layer.
 */
import { Writable } from 'node:stream';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { lineOf, parse, readSource, sourceFiles, walk, type Source } from '../layering/checker.js';
import { Output } from '../../main/cli/render/output.js';
import { ScreenText, shown } from '../../main/cli/render/screen-text.js';

/** The files of main/cli that may touch the process's own streams, and why. */
const STREAM_USERS: Record<string, string> = {
  'main/cli/render/output.ts': 'the output layer: the one writer',
  'main/cli/context.ts': 'hands the process streams to the Output it makes',
  'main/cli/index.ts': 'waits for both streams to drain (empty writes) before the exit code is set',
  'main/cli/interrupts.ts': 'its last words on a second Ctrl-C, passed through visible()',
  'main/cli/settings.ts': 'a config move reported before any Output exists, passed through visible()',
  'main/cli/console-events.ts':
    'a malformed launcher pipe name, reported before any Output exists, passed through visible()',
  'main/cli/commands/stdio.ts': 'the stdio front door: JSON-RPC messages for a program, never for a person',
  'main/cli/top/screen.tsx': "Ink draws `contactor top`; every cell of agent text is layout.ts's plain/fit",
};
/** What reading a stream's properties looks like: not a way to write to it. */
const STREAM_READS = new Set(['isTTY', 'columns', 'rows', 'on', 'once', 'off']);

/** `process.stdout` / `process.stderr` used other than to read a property, and every `console.*`. */
function writers({ rel, source }: Source): string[] {
  const found: string[] = [];
  walk(source, (node) => {
    if (!ts.isPropertyAccessExpression(node)) return;
    const text = node.getText(source);
    if (text === 'process.stdout' || text === 'process.stderr') {
      const parent = node.parent;
      const read = ts.isPropertyAccessExpression(parent) && STREAM_READS.has(parent.name.text);
      if (!read) found.push(`${rel}:${lineOf(source, node)}: ${parent.getText(source).slice(0, 80)}`);
    }
    if (ts.isIdentifier(node.expression) && node.expression.text === 'console')
      found.push(`${rel}:${lineOf(source, node)}: ${text}`);
  });
  return found;
}

/** The ways a page takes text: only renderer/page-text.ts may use them. */
const PAGE_TEXT_WAYS = ['textContent', 'innerText', 'innerHTML', 'outerHTML', 'nodeValue', 'createTextNode'];
const PAGE_TEXT_CALLS = ['insertAdjacentHTML', 'insertAdjacentText', 'write', 'writeln'];

function pageWriters({ rel, source }: Source): string[] {
  const found: string[] = [];
  walk(source, (node) => {
    if (!ts.isPropertyAccessExpression(node)) return;
    const name = node.name.text;
    const assigned =
      ts.isBinaryExpression(node.parent) &&
      node.parent.left === node &&
      node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
    const called = ts.isCallExpression(node.parent) && node.parent.expression === node;
    if (
      (PAGE_TEXT_WAYS.includes(name) && (assigned || name === 'createTextNode')) ||
      (called && PAGE_TEXT_CALLS.includes(name) && node.expression.getText(source) === 'document') ||
      (called && name.startsWith('insertAdjacent'))
    )
      found.push(`${rel}:${lineOf(source, node)}: ${node.parent.getText(source).slice(0, 80)}`);
  });
  return found;
}

describe('the output layer is the only writer', () => {
  it('nothing in main/cli writes to the process streams or the console but the files that say why', () => {
    const found = sourceFiles('main/cli/')
      .filter((rel) => !(rel in STREAM_USERS))
      .flatMap((rel) => writers(readSource(rel)));
    expect(found).toEqual([]);
    for (const rel of Object.keys(STREAM_USERS)) expect(writers(readSource(rel)), rel).not.toEqual([]);
  });

  it('the check finds a verb that writes around the layer', () => {
    const planted = parse(
      'main/cli/commands/planted.ts',
      [
        'export function a(text: string) { process.stdout.write(text); }',
        'export function b(text: string) { const err = process.stderr; err.write(text); }',
        'export function c(text: string) { console.log(text); }',
        'export const d = process.stdout.isTTY;',
      ].join('\n'),
    );
    expect(writers(planted)).toEqual([
      'main/cli/commands/planted.ts:1: process.stdout.write',
      'main/cli/commands/planted.ts:2: err = process.stderr',
      'main/cli/commands/planted.ts:3: console.log',
    ]);
  });

  it('nothing in renderer/ puts text into a page but renderer/page-text.ts', () => {
    const found = sourceFiles('renderer/')
      .filter((rel) => rel !== 'renderer/page-text.ts')
      .flatMap((rel) => pageWriters(readSource(rel)));
    expect(found).toEqual([]);
    expect(pageWriters(readSource('renderer/page-text.ts'))).toHaveLength(2);
    const planted = parse(
      'renderer/planted.ts',
      [
        'export function a(el: HTMLElement, t: string) { el.textContent = t; }',
        'export function b(el: HTMLElement, t: string) { el.append(document.createTextNode(t)); }',
        'export function c(el: HTMLElement, t: string) { el.insertAdjacentText("beforeend", t); }',
        'export function d(el: HTMLElement) { return el.textContent; }',
      ].join('\n'),
    );
    expect(pageWriters(planted).map((f) => f.split(':')[1])).toEqual(['1', '2', '3']);
  });
});

/** An Output writing into strings, both streams terminals (so colours are on). */
function capture(json = false): { out: Output; stdout: () => string; stderr: () => string } {
  const sink = () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString('utf8');
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    stream.isTTY = true;
    return { stream, text: () => text };
  };
  const o = sink();
  const e = sink();
  return { out: new Output(json, { stdout: o.stream, stderr: e.stream, env: {} }), stdout: o.text, stderr: e.text };
}

const ATTACK = 'rm -rf ~/work \r\u001b[2K\u001b[1A\u001b[2K    command: ls -la \u202Egnp.exe\u200B';
const SHOWN = 'rm -rf ~/work ␍␛[2K␛[1A␛[2K    command: ls -la <U+202E>gnp.exe<U+200B>';

describe('at run time', () => {
  it('every method shows agent text as marks, and the CLI’s own colours as colours', () => {
    const { out, stdout, stderr } = capture();
    out.line(ATTACK);
    out.text(ATTACK);
    out.chunk(ATTACK);
    out.line(shown`${out.c.yellow('asks')}: ${ATTACK}`);
    out.note(ATTACK);
    out.progress(ATTACK);
    out.error(ATTACK);
    expect(stdout()).toBe(`${SHOWN}\n${SHOWN}\n${SHOWN}\u001b[33masks\u001b[39m: ${SHOWN}\n`);
    expect(stderr()).toBe(`${SHOWN}\n${SHOWN}\u001b[31mcontactor:\u001b[39m ${SHOWN}\n`);
  });

  it('a colour marks what it colours; a ScreenText glued into a plain string throws; none can be forged', () => {
    const { out } = capture();
    expect(out.c.bold(ATTACK).raw).toBe(`\u001b[1m${SHOWN}\u001b[22m`);
    const styled = out.c.green('ok');
    expect(() => `${styled} ${ATTACK}`).toThrow(/shown`/);
    expect(() => String(styled)).toThrow(/shown`/);
    const Forge = ScreenText as unknown as new (token: symbol, raw: string) => ScreenText;
    expect(() => new Forge(Symbol('screen text'), ATTACK)).toThrow(/made by shown/);
    expect(() => shown([ATTACK] as unknown as TemplateStringsArray)).toThrow(/template tag/);
  });

  it('a --json document escapes what a terminal would act on, and parses back to the same value', () => {
    const { out, stdout } = capture(true);
    const value = { text: `a\u0085b\u202Ec\u2028d\u{E0041}e\u001bf\u3164g\u{E0100}h\u2764\uFE0F` };
    out.doc(value);
    expect(stdout()).toBe(
      '{\n  "text": "a\\u0085b\\u202ec\\u2028d\\udb40\\udc41e\\u001bf\\u3164g\\udb40\\udd00h\u2764\uFE0F"\n}\n',
    );
    expect(JSON.parse(stdout())).toEqual(value);
  });
});
