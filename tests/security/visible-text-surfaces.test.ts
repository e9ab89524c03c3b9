/**
 * Every sequence an agent could use to drive a terminal or to hide or reverse words, through every surface
 * that shows agent text (SECURITY.md#what-a-person-reads): the CLI's renderers written through the output
 * layer into a terminal emulator (xterm.js), `contactor top`'s cells, the toasts and the tray menu. Each
 * surface must show the sequence as its marks between the words around it. (The windows:
 * tests/e2e/visible-text-windows.test.ts; the real CLI in a pseudo-terminal: tests/cli/agent-text-pty.test.ts.)
 */
import { Writable } from 'node:stream';
import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { formatAuditEntry } from '../../main/cli/commands/audit.js';
import { printCheck } from '../../main/cli/doctor/check.js';
import { Output } from '../../main/cli/render/output.js';
import { questionLines } from '../../main/cli/render/render-pending.js';
import { printOutcome } from '../../main/cli/render/render-task.js';
import { table } from '../../main/cli/render/table.js';
import { tailLines } from '../../main/cli/top/components/detail-pane.js';
import { columnsFor, rowCells } from '../../main/cli/top/layout.js';
import { snapshotLines } from '../../main/cli/top/snapshot-text.js';
import type { Task } from '../../main/domain/task.js';
import type { CliTask } from '../../main/schema/cli.js';
import { toastPlanFor } from '../../main/shell/toast-plan.js';
import { titleOf } from '../../main/shell/tray-state.js';
import { row, snapshot } from '../cli/top/rows.js';

/** [what, the sequence, how a person sees it, how a quoted audit value shows it (JSON escapes C0 itself)] */
const SEQUENCES: [string, string, string, string][] = [
  ['CSI cursor up and erase line', '\u001b[1A\u001b[2K', '␛[1A␛[2K', '\\u001b[1A\\u001b[2K'],
  ['CSI cursor position and clear screen', '\u001b[H\u001b[2J', '␛[H␛[2J', '\\u001b[H\\u001b[2J'],
  ['CR', '\r', '␍', '\\r'],
  ['BS', '\b\b\b', '␈␈␈', '\\b\\b\\b'],
  ['OSC 52 clipboard write', '\u001b]52;c;cm0gLXJm\u0007', '␛]52;c;cm0gLXJm␇', '\\u001b]52;c;cm0gLXJm\\u0007'],
  [
    'OSC 8 link',
    '\u001b]8;;https://evil.test\u001b\\link\u001b]8;;\u001b\\',
    '␛]8;;https://evil.test␛\\link␛]8;;␛\\',
    '\\u001b]8;;https://evil.test\\u001b\\\\link\\u001b]8;;\\u001b\\\\',
  ],
  ['DCS', '\u001bP1$r0m\u001b\\', '␛P1$r0m␛\\', '\\u001bP1$r0m\\u001b\\\\'],
  ['C1 CSI', '\u009b2J', '<U+009B>2J', '<U+009B>2J'],
  ['RLO', '\u202E', '<U+202E>', '<U+202E>'],
  ['zero-width space and joiner', '\u200B\u200D', '<U+200B><U+200D>', '<U+200B><U+200D>'],
  ['tag characters', '\u{E0001}\u{E0072}\u{E006D}', '<U+E0001><U+E0072><U+E006D>', '<U+E0001><U+E0072><U+E006D>'],
];

/** What an agent sends: the sequence between two words a person must see. */
const agentText = (sequence: string) => `rm -rf ~/work ${sequence} ls -la`;
const shownAs = (mark: string) => `rm -rf ~/work ${mark} ls -la`;

/** What a terminal shows after the output layer wrote `draw`'s lines (colours on: both streams are terminals). */
async function screen(draw: (out: Output) => void): Promise<string> {
  let written = '';
  const tty = () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString('utf8');
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    stream.isTTY = true;
    return stream;
  };
  draw(new Output(false, { stdout: tty(), stderr: tty(), env: {} }));
  const term = new Terminal({ cols: 220, rows: 40, allowProposedApi: true });
  // A terminal's line discipline turns LF into CR LF (onlcr).
  await new Promise<void>((resolve) => term.write(written.replace(/\n/g, '\r\n'), resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < term.rows; i += 1) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  return lines.join('\n');
}

const times = { createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:30:00.000Z' };

function cliTask(extra: { pending?: unknown; state?: string; reply?: string; reason?: string }): CliTask {
  return {
    kind: 'task',
    id: 'task-1',
    contextId: 'ctx',
    status: {
      state: extra.state ?? 'input-required',
      timestamp: times.createdAt,
      ...(extra.reason ? { message: { parts: [{ kind: 'text', text: extra.reason }] } } : {}),
    },
    history: [],
    artifacts: extra.reply ? [{ artifactId: 'a', parts: [{ kind: 'text', text: extra.reply }] }] : [],
    metadata: { agent: 'dsh', requiresReview: true, ...(extra.pending ? { pending: extra.pending } : {}) },
  } as unknown as CliTask;
}

function permission(text: string): unknown {
  return {
    kind: 'permission',
    requestId: 'r1',
    toolCall: { title: text, kind: 'execute', rawInput: { command: text }, locations: [{ path: text }] },
    options: [
      { optionId: 'ok', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ],
    ...times,
  };
}

function decision(text: string): unknown {
  return { kind: 'decision', question: text, options: [text, 'keep'], recommend: text, reason: text, ...times };
}

/** Each surface: what it shows of `text` (a terminal's screen, a cell, a toast's fields). */
const SURFACES: [string, (text: string) => Promise<string> | string, 'marks' | 'audit'][] = [
  ['pending / get: permission', (t) => screen((out) => questionLines(cliTask({ pending: permission(t) }), out.c).forEach((l) => out.line(l))), 'marks'], // prettier-ignore
  ['pending / get: decision', (t) => screen((out) => questionLines(cliTask({ pending: decision(t) }), out.c).forEach((l) => out.line(l))), 'marks'], // prettier-ignore
  ['send / answer / get: reply', (t) => screen((out) => printOutcome(out, cliTask({ state: 'completed', reply: t }))), 'marks'], // prettier-ignore
  ['send / get: failure reason', (t) => screen((out) => printOutcome(out, cliTask({ state: 'failed', reason: t }))), 'marks'], // prettier-ignore
  ['watch / logs: streamed text and lines', (t) => screen((out) => { out.chunk(t); out.line(); out.line(t); }), 'marks'], // prettier-ignore
  ['audit', (t) => screen((out) => out.line(formatAuditEntry({ at: times.createdAt, type: 'task.input-required', question: t }))), 'audit'], // prettier-ignore
  ['doctor: agent log lines', (t) => screen((out) => printCheck(out, { name: 'acp dsh', status: 'fail', detail: 'exited', stderr: t, log: t })), 'marks'], // prettier-ignore
  ['agents: a table cell', (t) => screen((out) => table(['AGENT', 'DESCRIPTION'], [[out.c.bold('dsh'), t]]).forEach((l) => out.line(l))), 'marks'], // prettier-ignore
  ['top: one-shot snapshot', (t) => screen((out) => snapshotLines(snapshot([row('t1', { brief: t })]), Date.parse(times.createdAt)).forEach((l) => out.line(l))), 'marks'], // prettier-ignore
  ['top: a table cell', (t) => rowCells(row('t1', { lastLine: t }), columnsFor(200), Date.parse(times.createdAt)).rest, 'marks'], // prettier-ignore
  ['top: the reply pane', (t) => tailLines(t, 200, 3).join('\n'), 'marks'],
  ['toast: a permission', (t) => { const p = toastPlanFor(cliTask({ pending: permission(t) }) as unknown as Task)!; return [p.title, p.body, ...p.buttons].join('\n'); }, 'marks'], // prettier-ignore
  ['toast: a decision', (t) => { const p = toastPlanFor(cliTask({ pending: { ...(decision(t) as object), workspace: t } }) as unknown as Task)!; return [p.title, p.body, ...p.buttons].join('\n'); }, 'marks'], // prettier-ignore
  ['tray: a task in the menu', (t) => titleOf({ history: [{ parts: [{ kind: 'text', text: t }] }] } as unknown as Task, 200), 'marks'], // prettier-ignore
];

const CASES = SURFACES.flatMap(([surface, show, kind]) =>
  SEQUENCES.map(
    ([what, sequence, mark, audit]) => [surface, what, show, sequence, kind === 'audit' ? audit : mark] as const,
  ),
);

describe('what a person reads, sequence by surface', () => {
  it.each(CASES)('%s: %s', async (_surface, _what, show, sequence, mark) => {
    expect(await show(agentText(sequence))).toContain(shownAs(mark));
  });
});
