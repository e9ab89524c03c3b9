/** `contactor top`'s keys (main/cli/top/keys.ts): what each press asks for, in each mode of the screen. */
import { describe, expect, it } from 'vitest';
import { commandFor } from '../../../main/cli/top/keys.js';
import { initialState, openDetail, withSnapshot, type TopState } from '../../../main/cli/top/view-model.js';
import { row, snapshot } from './rows.js';

function listed(...rows: Parameters<typeof row>[]): TopState {
  return withSnapshot(initialState(), snapshot(rows.map((r) => row(...r))));
}

describe('top keys', () => {
  const asking = listed(['t1', { state: 'input-required', question: { kind: 'decision', title: 'A or B?' } }], ['t2']);

  it('moves with arrows and j/k, opens with enter, quits with q and Ctrl+C', () => {
    expect(commandFor(asking, '', { downArrow: true })).toEqual({ kind: 'move', by: 1 });
    expect(commandFor(asking, 'j', {})).toEqual({ kind: 'move', by: 1 });
    expect(commandFor(asking, '', { upArrow: true })).toEqual({ kind: 'move', by: -1 });
    expect(commandFor(asking, 'k', {})).toEqual({ kind: 'move', by: -1 });
    expect(commandFor(asking, '', { return: true })).toEqual({ kind: 'open' });
    expect(commandFor(asking, 'q', {})).toEqual({ kind: 'quit' });
    expect(commandFor(asking, 'c', { ctrl: true })).toEqual({ kind: 'quit' });
  });

  it('no bare key answers: Enter, y, digits and space do nothing to a question until `a` opens the answer line', () => {
    for (const [input, key] of [
      ['y', {}],
      ['1', {}],
      [' ', {}],
      ['', { tab: true }],
    ] as const) {
      const command = commandFor(asking, input, key);
      expect(['none', 'explain']).toContain(command.kind);
    }
    expect(commandFor(asking, 'y', {})).toEqual({
      kind: 'explain',
      text: '"y" does nothing here: a answers, c cancels, q quits',
    });
    expect(commandFor(openDetail(asking), '', { return: true }).kind).toBe('explain');
    expect(commandFor(asking, 'a', {})).toEqual({ kind: 'start-answer', taskId: 't1' });
  });

  it('the answer line takes typed text, sends only on Enter, and Esc leaves without sending', () => {
    const typing: TopState = { ...asking, prompt: { kind: 'answer', taskId: 't1', input: '' } };
    expect(commandFor(typing, 'y', {})).toEqual({ kind: 'type', text: 'y' });
    expect(commandFor(typing, 'q', {})).toEqual({ kind: 'type', text: 'q' });
    expect(commandFor(typing, '', { backspace: true })).toEqual({ kind: 'erase' });
    expect(commandFor(typing, '', { return: true })).toEqual({ kind: 'submit-answer' });
    expect(commandFor(typing, '', { escape: true })).toEqual({ kind: 'dismiss' });
    // A pasted escape sequence or control character is not text.
    expect(commandFor(typing, '\u001b]2;x\u0007', {})).toEqual({ kind: 'type', text: ']2;x' });
    expect(commandFor(typing, 'c', { ctrl: true })).toEqual({ kind: 'quit' });
  });

  it('a refers to the selected task and explains when it has no question', () => {
    const second = { ...asking, selectedId: 't2' };
    expect(commandFor(second, 'a', {})).toEqual({ kind: 'explain', text: 'this task has no open question' });
  });

  it('cancel asks first; only y confirms, any other key keeps the task', () => {
    expect(commandFor(asking, 'c', {})).toEqual({ kind: 'start-cancel', taskId: 't1' });
    const confirming: TopState = { ...asking, prompt: { kind: 'cancel', taskId: 't1' } };
    expect(commandFor(confirming, 'y', {})).toEqual({ kind: 'confirm-cancel', taskId: 't1' });
    for (const [input, key] of [
      ['', { return: true }],
      ['n', {}],
      ['Y', {}],
      ['', { escape: true }],
      [' ', {}],
    ] as const)
      expect(commandFor(confirming, input, key)).toEqual({ kind: 'dismiss' });
    const done = listed(['t3', { state: 'completed' }]);
    expect(commandFor(done, 'c', {})).toEqual({ kind: 'explain', text: 'this task has already completed' });
  });

  it('in the detail pane Esc, ← or h go back, and a / c act on the followed task', () => {
    const following = openDetail(asking);
    expect(commandFor(following, '', { escape: true })).toEqual({ kind: 'close' });
    expect(commandFor(following, '', { leftArrow: true })).toEqual({ kind: 'close' });
    expect(commandFor(following, 'a', {})).toEqual({ kind: 'start-answer', taskId: 't1' });
    expect(commandFor(following, 'c', {})).toEqual({ kind: 'start-cancel', taskId: 't1' });
  });
});
