/** `contactor top`'s view model (main/cli/top/view-model.ts) and cell formatting (layout.ts). */
import { describe, expect, it } from 'vitest';
import { callerChain, columnsFor, elapsed, plain, rowCells, stateLabel } from '../../../main/cli/top/layout.js';
import { tailLines } from '../../../main/cli/top/components/detail-pane.js';
import { checkAnswer } from '../../../main/cli/top/answer-check.js';
import {
  initialState,
  moveSelection,
  openDetail,
  withDetail,
  withFeedEvent,
  withFlash,
  withSnapshot,
} from '../../../main/cli/top/view-model.js';
import { row, snapshot } from './rows.js';

describe('top view model', () => {
  it('selects the newest task first and keeps the selection on its task across snapshots', () => {
    let s = withSnapshot(initialState(), snapshot([row('b'), row('a')]));
    expect(s.selectedId).toBe('b');
    s = moveSelection(s, 1);
    expect(s.selectedId).toBe('a');
    s = withSnapshot(s, snapshot([row('c'), row('b'), row('a')]));
    expect(s.selectedId).toBe('a');
    expect(moveSelection(s, 5).selectedId).toBe('a');
    expect(moveSelection(s, 'first').selectedId).toBe('c');
    s = withSnapshot(s, snapshot([row('c')]));
    expect(s.selectedId).toBe('c');
  });

  it('a streamed chunk updates the last line without a snapshot; a new state or an unknown task asks for one', () => {
    const s = withSnapshot(initialState(), snapshot([row('t1')]));
    const chunk = withFeedEvent(s, {
      kind: 'artifact-update',
      taskId: 't1',
      text: 'line one\nline two\n',
      append: true,
    });
    expect(chunk.refetch).toBe(false);
    expect(chunk.state.rows[0]!.lastLine).toBe('line two');
    // Words streamed without a line break continue the line; the row keeps its end.
    let words = withFeedEvent(s, { kind: 'artifact-update', taskId: 't1', text: 'tick 1 ', append: true }).state;
    words = withFeedEvent(words, { kind: 'artifact-update', taskId: 't1', text: 'tick 2 ', append: true }).state;
    expect(words.rows[0]!.lastLine).toBe('tick 1 tick 2 ');
    expect(rowCells({ ...words.rows[0]!, lastLine: 'a'.repeat(50) + ' the end' }, columnsFor(80), 0).rest).toMatch(
      /…a+ the end$/,
    );
    const asked = withFeedEvent(chunk.state, { kind: 'status-update', taskId: 't1', state: 'input-required' });
    expect(asked.refetch).toBe(true);
    expect(asked.state.rows[0]!.state).toBe('input-required');
    expect(withFeedEvent(s, { kind: 'status-update', taskId: 'new', state: 'submitted' }).refetch).toBe(true);
  });

  it('connecting mid-stream keeps words apart: the snapshot says what followed its trimmed last line', () => {
    const cases: [Partial<ReturnType<typeof row>>, string, string][] = [
      [{ lastLine: 'word1 word2 word3', lastLineEnd: 'space' }, 'word4 ', 'word1 word2 word3 word4 '],
      [{ lastLine: 'word1 word2 word3', lastLineEnd: 'break' }, 'word4', 'word4'],
      [{ lastLine: 'word1 word2 wor' }, 'd3 word4', 'word1 word2 word3 word4'],
    ];
    for (const [extra, chunk, shown] of cases) {
      const s = withSnapshot(initialState(), snapshot([row('t1', extra)]));
      const next = withFeedEvent(s, { kind: 'artifact-update', taskId: 't1', text: chunk, append: true }).state;
      expect(next.rows[0]!.lastLine).toBe(shown);
    }
  });

  it('a chunk ending in a line break starts the next chunk on a new line', () => {
    let s = withSnapshot(initialState(), snapshot([row('t1')]));
    for (const text of ['first line', ' ends\n', 'second'])
      s = withFeedEvent(s, { kind: 'artifact-update', taskId: 't1', text, append: true }).state;
    expect(s.rows[0]!.lastLine).toBe('second');
  });

  it('a flash telling a task\'s state follows that task: no stale "is working" once it completed', () => {
    let s = withSnapshot(initialState(), snapshot([row('t1')]));
    s = withFlash(s, 'answered "2": task t1 is working', false, { taskId: 't1', state: 'working' });
    s = withFeedEvent(s, { kind: 'status-update', taskId: 't1', state: 'completed' }).state;
    expect(s.flash?.text).toBe('task t1 is completed');
    // Learned from a snapshot as well (the feed reconnected and missed the event).
    s = withFlash(s, 'task t1 is working', false, { taskId: 't1', state: 'working' });
    s = withSnapshot(s, snapshot([row('t1', { state: 'failed' })]));
    expect(s.flash?.text).toBe('task t1 is failed');
    // A flash about nothing in particular stays until a key clears it.
    s = withFeedEvent(withFlash(s, 'press ? for keys'), {
      kind: 'status-update',
      taskId: 't1',
      state: 'working',
    }).state;
    expect(s.flash?.text).toBe('press ? for keys');
  });

  it('the followed task collects its reply and notes live, and loads its question from activity/task', () => {
    let s = openDetail(withSnapshot(initialState(), snapshot([row('t1')])));
    s = withFeedEvent(s, { kind: 'artifact-update', taskId: 't1', text: 'hello ', append: true }).state;
    s = withFeedEvent(s, { kind: 'artifact-update', taskId: 't1', text: 'world', append: true }).state;
    s = withFeedEvent(s, { kind: 'status-update', taskId: 't1', state: 'working', note: 'tool: Run ls' }).state;
    expect(s.detail).toMatchObject({ text: 'hello world', notes: ['tool: Run ls'] });
    const pending = {
      kind: 'decision',
      question: 'A or B?',
      options: ['A', 'B'],
      recommend: 'A',
      reason: 'simpler',
      createdAt: '2026-12-01T10:00:00.000Z',
      expiresAt: '2026-12-01T10:30:00.000Z',
    };
    s = withDetail(s, {
      cursor: 'abc:9',
      row: row('t1', { state: 'input-required' }),
      task: { artifacts: [{ parts: [{ kind: 'text', text: 'so far' }] }], metadata: { pending } },
      notes: [{ kind: 'tool', text: 'Run ls' }],
      children: [],
    });
    expect(s.detail).toMatchObject({ loaded: true, text: 'so far', pending: { question: 'A or B?' } });
  });

  it('an answer must be typed, and a number must name an option', () => {
    const pending = {
      kind: 'decision' as const,
      question: 'A or B?',
      options: ['A', 'B'],
      recommend: 'A',
      reason: '',
      createdAt: '',
      expiresAt: '',
    };
    expect(checkAnswer(pending, '   ')).toEqual({ ok: false, error: 'type an answer first (Esc: back)' });
    expect(checkAnswer(pending, '3')).toEqual({ ok: false, error: 'there is no option 3: choose 1-2 (1. A; 2. B)' });
    expect(checkAnswer(pending, '0')).toEqual({ ok: false, error: 'there is no option 0: choose 1-2 (1. A; 2. B)' });
    expect(checkAnswer(pending, ' 2 ')).toEqual({ ok: true, answer: '2' });
    expect(checkAnswer(pending, 'B please')).toEqual({ ok: true, answer: 'B please' });
  });
});

describe('top cells', () => {
  it('shows who asked whom, the state as a person reads it, and time in it', () => {
    expect(callerChain(row('t', { caller: 'person', chain: ['echo'] }))).toBe('person → echo');
    expect(callerChain(row('t', { agent: 'gemini', caller: 'codex', chain: ['claude', 'codex', 'gemini'] }))).toBe(
      'claude → codex → gemini',
    );
    expect(stateLabel(row('t', { state: 'submitted', queuePosition: 2 }))).toBe('waiting #2');
    expect(stateLabel(row('t', { state: 'input-required', question: { kind: 'permission', title: 'x' } }))).toBe(
      'asks permission',
    );
    const now = Date.parse('2026-12-01T10:00:00.000Z');
    expect(elapsed('2026-12-01T09:59:51.000Z', now)).toBe('9s');
    expect(elapsed('2026-12-01T09:55:55.000Z', now)).toBe('4m05s');
    expect(elapsed('2026-12-01T07:53:00.000Z', now)).toBe('2h07m');
  });

  it('narrow terminals drop the line, then shrink the chain; nothing is wider than the terminal', () => {
    for (const width of [20, 40, 60, 80, 200]) {
      const c = columnsFor(width);
      expect(2 + c.state + (c.age ? 1 + c.age : 0) + 1 + c.chain + (c.line ? 1 + c.line : 0)).toBeLessThanOrEqual(
        width,
      );
    }
    expect(columnsFor(40).line).toBe(0);
    expect(columnsFor(120).line).toBeGreaterThan(40);
  });

  it("an agent's escape sequences show as marks: it cannot set the title, move the cursor or clear the screen", () => {
    expect(plain('a\u001b]2;pwned\u0007b\u001b[2Jc\u009b31md')).toBe('a␛]2;pwned␇b␛[2Jc<U+009B>31md');
    expect(tailLines('one\ntwo\u001b[1Athree\nfour', 80, 2)).toEqual(['two␛[1Athree', 'four']);
    // A lone CR is shown, not taken as a line break; CR LF is one.
    expect(tailLines('safe\r\nrm -rf ~\rls', 80, 2)).toEqual(['safe', 'rm -rf ~␍ls']);
    expect(tailLines('abcdefgh', 3, 2)).toEqual(['def', 'gh']);
  });
});
