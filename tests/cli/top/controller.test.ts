/**
 * `contactor top`'s controller (main/cli/top/controller.ts) driven by key presses against a stand-in for
 * the bridge (source.ts TopSource: the same five calls), so every path to `tasks/answer` and `tasks/cancel`
 * is visible: nothing reaches them but a typed, confirmed answer and a confirmed cancel.
 */
import { describe, expect, it } from 'vitest';
import type { TopData } from '../../../main/cli/top/controller.js';
import { TopController } from '../../../main/cli/top/controller.js';
import type { SourceHandlers } from '../../../main/cli/top/source.js';
import type { CliTask } from '../../../main/schema/cli.js';
import { eventually } from '../../helpers/wait.js';
import { row, snapshot } from './rows.js';

const PENDING = {
  kind: 'decision',
  question: 'A or B?',
  options: ['A', 'B'],
  recommend: 'A',
  reason: 'simpler',
  createdAt: '2026-12-01T10:00:00.000Z',
  expiresAt: '2026-12-01T10:30:00.000Z',
};

function standIn() {
  const calls: string[] = [];
  const asking = row('t1', { state: 'input-required', question: { kind: 'decision', title: 'A or B?' } });
  let handlers: SourceHandlers | undefined;
  // As the bridge does, an answered task is working again and a canceled one canceled in the next snapshot.
  const states = new Map<string, ReturnType<typeof row>>([['t1', asking]]);
  const listed = () => [states.get('t1')!, states.get('t2') ?? row('t2')];
  const data: TopData = {
    snapshot: async () => snapshot(listed()),
    detail: async (taskId) => ({
      cursor: 'abc:2',
      row: taskId === 't1' ? asking : row(taskId),
      task: { metadata: taskId === 't1' ? { pending: PENDING } : {} },
      notes: [],
      children: [],
    }),
    answer: async (taskId, answer) => {
      calls.push(`answer ${taskId} ${answer}`);
      states.set(taskId, row(taskId));
      return { id: taskId, status: { state: 'working' } } as CliTask;
    },
    cancel: async (taskId) => {
      calls.push(`cancel ${taskId}`);
      states.set(taskId, row(taskId, { state: 'canceled' }));
      return { id: taskId, status: { state: 'canceled' } } as CliTask;
    },
    follow: async (h, signal) => {
      handlers = h;
      h.snapshot(snapshot([asking, row('t2')]));
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    },
  };
  let quit = 0;
  const controller = new TopController(data, () => (quit += 1));
  const stop = new AbortController();
  void controller.run(stop.signal);
  const press = (keys: string[]) => {
    for (const k of keys) {
      if (k === 'enter') controller.key('', { return: true });
      else if (k === 'esc') controller.key('', { escape: true });
      else if (k === 'down') controller.key('', { downArrow: true });
      else controller.key(k, {});
    }
  };
  return { controller, calls, press, stop, quitCount: () => quit, handlers: () => handlers! };
}

describe('top controller', () => {
  it('stray keys never answer or cancel: Enter, y, digits, space and a dismissed prompt send nothing', async () => {
    const t = standIn();
    t.press(['enter', 'y', '1', ' ', 'esc', 'a', 'esc', 'c', 'enter', 'c', 'n', 'c', 'esc']);
    await eventually(() => t.controller.state.detail?.loaded === true, 'the detail to load');
    expect(t.calls).toEqual([]);
    t.stop.abort();
  });

  it('an out-of-range number is refused on the answer line; a typed answer goes out on Enter', async () => {
    const t = standIn();
    t.press(['a']);
    await eventually(() => t.controller.state.detail?.pending !== undefined, 'the question to load');
    t.press(['enter']);
    expect(t.controller.state.prompt).toMatchObject({ error: 'type an answer first (Esc: back)' });
    t.press(['3', 'enter']);
    expect(t.controller.state.prompt).toMatchObject({ error: 'there is no option 3: choose 1-2 (1. A; 2. B)' });
    expect(t.calls).toEqual([]);
    t.controller.key('', { backspace: true });
    t.press(['2', 'enter']);
    await eventually(() => t.calls.length === 1, 'the answer');
    expect(t.calls).toEqual(['answer t1 2']);
    await eventually(() => t.controller.state.prompt === undefined, 'the answer line to close');
    expect(t.controller.state.flash?.text).toBe('answered "2": task t1 is working');
    t.stop.abort();
  });

  it('c then y cancels the selected task; q quits', async () => {
    const t = standIn();
    t.press(['down', 'c', 'y']);
    await eventually(() => t.calls.length === 1, 'the cancel');
    expect(t.calls).toEqual(['cancel t2']);
    t.press(['q']);
    expect(t.quitCount()).toBe(1);
    t.stop.abort();
  });

  it('live events move the table: a chunk sets the last line, a new state takes a fresh snapshot', async () => {
    const t = standIn();
    t.handlers().event({ kind: 'artifact-update', taskId: 't2', text: 'working on it\n', append: true });
    expect(t.controller.state.rows[1]!.lastLine).toBe('working on it');
    t.handlers().connection('reconnecting');
    expect(t.controller.state.connection).toBe('reconnecting');
    t.stop.abort();
  });
});
