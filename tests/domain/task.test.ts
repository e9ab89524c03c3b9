import { describe, expect, it } from 'vitest';
import {
  canTransition,
  isInterrupted,
  isTerminal,
  TASK_STATES,
  TERMINAL_STATES,
  TRANSITIONS,
  type TaskState,
} from '../../main/domain/task.js';

/** The table written out move by move, so a change to TRANSITIONS must be made here on purpose too. */
const EXPECTED: Record<TaskState, TaskState[]> = {
  submitted: ['working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed', 'rejected'],
  working: ['working', 'input-required', 'auth-required', 'completed', 'canceled', 'failed'],
  'input-required': ['working', 'input-required', 'completed', 'canceled', 'failed'],
  'auth-required': ['working', 'canceled', 'failed'],
  completed: [],
  canceled: [],
  failed: [],
  rejected: [],
};

describe('task state transitions', () => {
  it('allows exactly the listed moves from every state', () => {
    for (const from of TASK_STATES) {
      const allowed = TASK_STATES.filter((to) => canTransition(from, to));
      expect({ from, allowed }).toEqual({ from, allowed: EXPECTED[from] });
    }
  });

  it('keeps terminal states final: no move out, not even to themselves', () => {
    for (const from of TERMINAL_STATES) {
      expect(TRANSITIONS[from]).toEqual([]);
      for (const to of TASK_STATES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('never goes back to submitted, and only a new task can be rejected', () => {
    for (const from of TASK_STATES) {
      expect(canTransition(from, 'submitted')).toBe(false);
      expect(canTransition(from, 'rejected')).toBe(from === 'submitted');
    }
  });

  it('classifies terminal and interrupted states', () => {
    expect(TASK_STATES.filter(isTerminal)).toEqual(['completed', 'canceled', 'failed', 'rejected']);
    expect(TASK_STATES.filter(isInterrupted)).toEqual(['input-required', 'auth-required']);
  });
});
