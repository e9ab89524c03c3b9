/**
 * ActivityWindow.show(taskId) with the fake `electron` module: the page is told which task to show only once it
 * listens — `loadFile` resolves at did-finish-load (docs/api/web-contents.md `contents.loadURL`) — and the task
 * asked for last wins when presses come while it loads.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ACTIVITY_CHANNELS } from '../../main/schema/ipc.js';
import { fake } from './fake-electron.js';

vi.mock('electron', () => import('./fake-electron.js'));
const { ActivityWindow } = await import('../../main/shell/activity-window.js');

const shown = (): unknown[] =>
  fake.windows[0]!.webContents.send.mock.calls.filter((c) => c[0] === ACTIVITY_CHANNELS.showTask).map((c) => c[1]);

beforeEach(() => fake.reset());

describe('ActivityWindow.show(taskId)', () => {
  it('a new window: the task is sent after its page has loaded, never before', async () => {
    const activity = new ActivityWindow({ preload: '/p.cjs', rendererHtml: '/activity.html' });
    activity.show('task-a');
    expect(shown()).toEqual([]);
    await vi.waitFor(() => expect(shown()).toEqual(['task-a']));
  });

  it('presses while the page loads: only the last task is sent, once, after the load', async () => {
    const activity = new ActivityWindow({ preload: '/p.cjs', rendererHtml: '/activity.html' });
    activity.show('task-a');
    activity.show('task-b');
    activity.show();
    expect(fake.windows).toHaveLength(1);
    expect(shown()).toEqual([]);
    await vi.waitFor(() => expect(shown()).toEqual(['task-b']));
  });

  it('a loaded window: sent at once, and the window comes forward', async () => {
    const activity = new ActivityWindow({ preload: '/p.cjs', rendererHtml: '/activity.html' });
    activity.show();
    // The window's own continuation of loadFile was attached first, so it has run once this await returns.
    await fake.windows[0]!.loadFile.mock.results[0]!.value;
    activity.show('task-c');
    expect(shown()).toEqual(['task-c']);
    expect(fake.windows[0]!.focus).toHaveBeenCalled();
  });
});
