/**
 * What a key press means on the `contactor top` screen, as data (app.tsx carries it out). Pure, so every
 * rule is a unit test: `a` only opens the answer line and `c` only asks whether to cancel; an answer goes
 * out on Enter after it was typed, a cancel on `y` after the question. q and Ctrl+C always quit.
 */
import { isTerminal } from '../../domain/task.js';
import type { TopState } from './view-model.js';
import { selectedRow } from './view-model.js';

/** The parts of Ink's key description the screen uses (ink's `Key`). */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
}

export type Command =
  | { kind: 'none' }
  | { kind: 'quit' }
  | { kind: 'move'; by: number | 'first' | 'last' }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'refresh' }
  | { kind: 'start-answer'; taskId: string }
  | { kind: 'start-cancel'; taskId: string }
  | { kind: 'type'; text: string }
  | { kind: 'erase' }
  | { kind: 'submit-answer' }
  | { kind: 'confirm-cancel'; taskId: string }
  | { kind: 'dismiss' }
  | { kind: 'explain'; text: string };

const PAGE = 10;

export function commandFor(state: TopState, input: string, key: KeyPress): Command {
  if (key.ctrl && input === 'c') return { kind: 'quit' };
  const prompt = state.prompt;
  if (prompt?.kind === 'answer') {
    if (key.escape) return { kind: 'dismiss' };
    if (key.return) return { kind: 'submit-answer' };
    if (key.backspace || key.delete) return { kind: 'erase' };
    if (key.ctrl || key.meta || key.tab || isNavigation(key)) return { kind: 'none' };
    const text = input.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
    return text ? { kind: 'type', text } : { kind: 'none' };
  }
  if (prompt?.kind === 'cancel') {
    // Only a plain `y` cancels: Enter, Esc or any other key leaves the task running.
    return input === 'y' && !key.ctrl && !key.meta
      ? { kind: 'confirm-cancel', taskId: prompt.taskId }
      : { kind: 'dismiss' };
  }
  if (key.ctrl || key.meta) return { kind: 'none' };
  if (input === 'q') return { kind: 'quit' };
  if (input === 'r') return { kind: 'refresh' };
  if (state.detail) {
    if (key.escape || key.leftArrow || key.backspace || input === 'h') return { kind: 'close' };
  } else {
    if (key.upArrow || input === 'k') return { kind: 'move', by: -1 };
    if (key.downArrow || input === 'j') return { kind: 'move', by: 1 };
    if (key.pageUp) return { kind: 'move', by: -PAGE };
    if (key.pageDown) return { kind: 'move', by: PAGE };
    if (key.home || input === 'g') return { kind: 'move', by: 'first' };
    if (key.end || input === 'G') return { kind: 'move', by: 'last' };
    if (key.return || key.rightArrow || input === 'l') return { kind: 'open' };
  }
  const target = state.detail ? state.rows.find((r) => r.taskId === state.detail!.taskId) : selectedRow(state);
  if (input === 'a') {
    if (!target) return { kind: 'none' };
    if (target.state !== 'input-required') return { kind: 'explain', text: 'this task has no open question' };
    return { kind: 'start-answer', taskId: target.taskId };
  }
  if (input === 'c') {
    if (!target) return { kind: 'none' };
    if (isTerminal(target.state)) return { kind: 'explain', text: `this task has already ${target.state}` };
    return { kind: 'start-cancel', taskId: target.taskId };
  }
  // Someone pressing y or Enter to approve is told how answering works, instead of nothing happening.
  const name = key.return ? 'Enter' : input === ' ' ? 'Space' : /^\S$/.test(input) ? `"${input}"` : undefined;
  if (name) return { kind: 'explain', text: `${name} does nothing here: a answers, c cancels, q quits` };
  return { kind: 'none' };
}

function isNavigation(key: KeyPress): boolean {
  return !!(
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end
  );
}
