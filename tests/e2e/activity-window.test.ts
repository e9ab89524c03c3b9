/**
 * The activity window in real Chromium (Debian's, driven by playwright-core): the built page loaded from
 * file:// under its CSP, the preload replaced by a stub that forwards to the main-process IPC handlers
 * (activity-ipc.ts, sender check included) of a REAL bridge with real agents. Main's nudge on feed events
 * (activity-window.ts notifyChanged) is reproduced by calling the page's onChange listeners. The scale test
 * drives the same page with a synthetic API: 1,000 tasks and a 10 MB reply streamed in the bridge's
 * 512-character chunks, 500 per pull, and measures long tasks while the detail follows it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActivityIpc, type ActivityIpc } from '../../main/shell/activity-ipc.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { desktopConfig, rpc, testEnv, type DesktopConfig } from '../shell/desktop-config.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGE = pathToFileURL(path.join(ROOT, 'out', 'renderer', 'activity.html')).href;
const SHOTS = path.join(ROOT, 'docs');
const WAIT = { timeout: TEST_TIMEOUT_MS, interval: 50 };
type Method = keyof ActivityIpc;

/** The page's globals as code passed to page.evaluate sees them (the tests compile without DOM types). */
interface PageGlobals {
  __listeners: Set<() => void>;
  __showTask: Set<(taskId: string) => void>;
  __call(method: string, args: unknown): Promise<unknown>;
  contactorActivity: Record<string, unknown>;
}

describe.skipIf(skipWithoutChromium('the activity-window e2e tests'))('activity window (Chromium)', () => {
  let cfg: DesktopConfig;
  let bridge: Bridge;
  let browser: Browser;
  let ipc: ActivityIpc;
  const calls: string[] = [];
  const copied: string[] = [];
  const b = () => ({ url: bridge.url, token: bridge.token });
  let page: Page;
  let unlisten: () => void;

  /** A page standing for the activity window's main frame, with the preload's functions as a stub over IPC. */
  async function openWindow(showAtLoad?: string): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1100, height: 720 }, colorScheme: 'dark' });
    p.on('pageerror', (err) => console.error('renderer error:', err));
    const sender = () => ({ sender: { id: 1 }, senderFrame: { processId: 1, routingId: 1, url: p.url() } });
    await p.exposeFunction('__call', (method: Method, args: unknown) => {
      calls.push(method === 'answer' ? `answer ${JSON.stringify(args)}` : method);
      return ipc[method](sender(), args);
    });
    await p.addInitScript((showAtLoad) => {
      const w = globalThis as unknown as PageGlobals;
      w.__listeners = new Set();
      w.__showTask = new Set();
      const call = (method: string, args?: unknown) => w.__call(method, args);
      w.contactorActivity = {
        snapshot: () => call('snapshot'),
        since: (cursor: string) => call('since', { cursor }),
        task: (taskId: string) => call('task', { taskId }),
        cancel: (taskId: string) => call('cancel', { taskId }),
        answer: (taskId: string, answer: string) => call('answer', { taskId, answer }),
        sendAgain: (taskId: string) => call('sendAgain', { taskId }),
        copyTaskId: (taskId: string) => call('copyTaskId', { taskId }),
        openLog: (agent: string) => call('openLog', { agent }),
        save: (taskId: string, artifactId: string, part: number) => call('save', { taskId, artifactId, part }),
        onChange: (cb: () => void) => {
          w.__listeners.add(cb);
          return () => w.__listeners.delete(cb);
        },
        // Main's `show(taskId)` (activity-window.ts). `showAtLoad`: the message comes as soon as the page listens,
        // before its first snapshot has arrived.
        onShowTask: (cb: (taskId: string) => void) => {
          w.__showTask.add(cb);
          if (showAtLoad) cb(showAtLoad);
          return () => w.__showTask.delete(cb);
        },
      };
    }, showAtLoad);
    await p.goto(PAGE);
    return p;
  }

  beforeAll(async () => {
    if (!existsSync(new URL(PAGE))) throw new Error(`${PAGE} is missing: run \`node scripts/build.mjs\` first`);
    cfg = desktopConfig();
    bridge = await createBridge({ configPath: cfg.configPath, env: testEnv() });
    await bridge.start();
    const frame = { webContentsId: 1, processId: 1, routingId: 1 };
    ipc = createActivityIpc({
      ownFrame: () => frame,
      bridge: () => bridge,
      copyText: (text) => copied.push(text),
      openPath: async () => '',
      saveFile: async () => false,
    });
    browser = await launchChromium();
    // Main's nudge, coalesced as activity-window.ts does (one per burst of feed events).
    let nudging = false;
    unlisten = bridge.server.dispatcher.feed.listen(() => {
      if (nudging || !page || page.isClosed()) return;
      nudging = true;
      setImmediate(() => {
        nudging = false;
        if (page.isClosed()) return;
        void page
          .evaluate(() => (globalThis as unknown as PageGlobals).__listeners.forEach((cb) => cb()))
          .catch(() => undefined);
      });
    });
  });

  afterAll(async () => {
    unlisten?.();
    await browser?.close();
    await bridge?.stop();
    cfg?.cleanup();
  });

  const rowOf = (taskId: string) => page.locator(`.row[data-task-id="${taskId}"]`);

  it('shows nothing but the empty state for a bridge with no tasks', async () => {
    page = await openWindow();
    await page.locator('#empty').waitFor({ state: 'visible' });
    expect(await page.locator('.row').count()).toBe(0);
    if (process.env.CONTACTOR_UPDATE_SCREENSHOT)
      await page.screenshot({ path: path.join(SHOTS, 'activity-empty.png') });
  });

  it('lists tasks live, newest first, with the caller chain, brief, state and summary', async () => {
    const first = await rpc(b(), 'message/send', { agent: 'echo', text: 'summarise the release notes\nin detail' });
    await rowOf(first.id).waitFor();
    expect(await rowOf(first.id).locator('.chain').textContent()).toBe('you → echo');
    expect(await rowOf(first.id).locator('.brief').textContent()).toBe('summarise the release notes');
    await vi.waitFor(async () => expect(await rowOf(first.id).locator('.state').textContent()).toBe('completed'), WAIT);
    const second = await rpc(b(), 'message/send', { agent: 'fake', text: 'progress' });
    await rowOf(second.id).waitFor();
    await vi.waitFor(async () => expect(await page.locator('#sum-finished').textContent()).toBe('2'), WAIT);
    const order = await page.locator('.row').evaluateAll((rows) =>
      rows
        .map((r) => ({
          id: (r as unknown as { dataset: { taskId: string } }).dataset.taskId,
          y: (r as unknown as { getBoundingClientRect(): { y: number } }).getBoundingClientRect().y,
        }))
        .sort((a, c) => a.y - c.y)
        .map((r) => r.id),
    );
    expect(order).toEqual([second.id, first.id]);
  });

  it('shows a task in detail: brief, reply, tool calls and plans, receipt', async () => {
    const task = await rpc(b(), 'message/send', { agent: 'fake', text: 'progress' });
    await rowOf(task.id).click();
    await page.locator('#detail .brief-text').waitFor();
    expect(await page.locator('#detail .brief-text').textContent()).toBe('progress');
    await vi.waitFor(
      async () => expect(await page.locator('#detail .transcript').textContent()).toContain('done'),
      WAIT,
    );
    const notes = await page.locator('#detail .note').allTextContents();
    expect(notes.some((n) => n.includes('read a.txt'))).toBe(true);
    expect(notes.some((n) => n.includes('step one'))).toBe(true);
    expect(await page.locator('#detail .receipt').textContent()).toContain('agent: fake');
    await page.getByRole('button', { name: 'Copy task id' }).click();
    await vi.waitFor(() => expect(copied).toContain(task.id), WAIT);
  });

  it('main asks to show a task (a toast of a question answered since): its detail opens, also before the first snapshot', async () => {
    const asked = await rpc(b(), 'message/send', { agent: 'echo', text: 'decide: left|right' });
    expect(asked.status.state).toBe('input-required');
    bridge.server.dispatcher.answer(asked.id, 'left', { kind: 'person', via: 'test' });
    await vi.waitFor(
      async () => expect((await rpc(b(), 'tasks/get', { id: asked.id })).status.state).toBe('completed'),
      WAIT,
    );
    await page.evaluate(
      (taskId) => (globalThis as unknown as PageGlobals).__showTask.forEach((cb) => cb(taskId)),
      asked.id,
    );
    await vi.waitFor(
      async () => expect(await page.locator('#detail .brief-text').textContent()).toContain('decide: left|right'),
      WAIT,
    );
    expect(await rowOf(asked.id).getAttribute('class')).toContain('selected');

    const fresh = await openWindow(asked.id);
    try {
      await vi.waitFor(
        async () => expect(await fresh.locator('#detail .brief-text').textContent()).toContain('decide: left|right'),
        WAIT,
      );
    } finally {
      await fresh.close();
    }
  });

  it('follows a streamed reply exactly: no chunk missing, none twice', async () => {
    const sent = await rpc(b(), 'message/send', {
      agent: 'fake',
      text: 'long 20000',
      configuration: { blocking: false },
    });
    await rowOf(sent.id).click();
    await vi.waitFor(async () => expect(await rowOf(sent.id).locator('.state').textContent()).toBe('completed'), WAIT);
    const expected = Array.from({ length: 20_000 }, (_, i) => String(i % 10)).join('');
    await vi.waitFor(async () => expect(await page.locator('#detail .transcript').textContent()).toBe(expected), WAIT);
  });

  it('answers a question by click, never by a bare key, through IPC', async () => {
    const asked = await rpc(b(), 'message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
    expect(asked.status.state).toBe('input-required');
    await rowOf(asked.id).waitFor();
    await vi.waitFor(async () => expect(await rowOf(asked.id).locator('.badge.asks').count()).toBe(1), WAIT);
    await vi.waitFor(async () => expect(await page.locator('#sum-needs').textContent()).toBe('1'), WAIT);
    await rowOf(asked.id).click();
    await page.locator('#detail .question .choice').first().waitFor();
    if (process.env.CONTACTOR_UPDATE_SCREENSHOT)
      await page.screenshot({ path: path.join(SHOTS, 'activity-question.png') });
    const before = calls.filter((c) => c.startsWith('answer')).length;
    for (const key of ['Enter', ' ', 'y', 'a', '1']) await page.keyboard.press(key);
    // A call made now reaches main after any answer a key handler sent (bindings are delivered in order).
    await page.evaluate(() => (globalThis as unknown as PageGlobals).__call('snapshot', undefined));
    expect(calls.filter((c) => c.startsWith('answer')).length).toBe(before);
    await page.locator('#detail .choice', { hasText: 'TOML' }).click();
    await vi.waitFor(
      async () => expect((await rpc(b(), 'tasks/get', { id: asked.id })).status.state).toBe('completed'),
      WAIT,
    );
    expect(calls).toContain(`answer ${JSON.stringify({ taskId: asked.id, answer: 'TOML' })}`);
    const got = await rpc(b(), 'tasks/get', { id: asked.id });
    expect(got.metadata.answeredBy).toBe('person (activity window)');
  });

  it('cancels a running task through IPC', async () => {
    const running = await rpc(b(), 'message/send', {
      agent: 'fake',
      text: 'stream',
      configuration: { blocking: false },
    });
    await vi.waitFor(async () => expect(await rowOf(running.id).locator('.state').textContent()).toBe('working'), WAIT);
    // A streaming row changes many times a second; it is updated in place (its element stays).
    const before = await rowOf(running.id).locator('.last').textContent();
    // (The tests compile without DOM types: the element is typed by what the call uses.)
    await rowOf(running.id).evaluate((el) =>
      (el as unknown as { setAttribute(name: string, value: string): void }).setAttribute('data-probe', 'kept'),
    );
    await vi.waitFor(async () => expect(await rowOf(running.id).locator('.last').textContent()).not.toBe(before), WAIT);
    expect(await rowOf(running.id).getAttribute('data-probe')).toBe('kept');
    // A person presses on the row's brief and the row is redrawn before the release: Chromium then sends no
    // click (the pressed node left the DOM), so the row must be chosen on the press.
    // (The row's box: its children are replaced on each redraw, so theirs can be gone by the time it is read.)
    const row = (await rowOf(running.id).boundingBox())!;
    const at = { x: row.x + row.width / 2, y: row.y + 31 };
    expect(
      await page.evaluate(
        ({ x, y }) =>
          (
            globalThis as unknown as { document: { elementFromPoint(x: number, y: number): { className: string } } }
          ).document.elementFromPoint(x, y).className,
        at,
      ),
    ).toBe('brief');
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    const pressed = await rowOf(running.id).locator('.last').textContent();
    await vi.waitFor(
      async () => expect(await rowOf(running.id).locator('.last').textContent()).not.toBe(pressed),
      WAIT,
    );
    await page.mouse.up();
    await vi.waitFor(async () => expect(await page.locator('#detail .task-id').textContent()).toBe(running.id), WAIT);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await vi.waitFor(
      async () => expect((await rpc(b(), 'tasks/get', { id: running.id })).status.state).toBe('canceled'),
      WAIT,
    );
    await vi.waitFor(
      async () => expect(await rowOf(running.id).locator('.state').textContent()).toBe('canceled'),
      WAIT,
    );
    if (process.env.CONTACTOR_UPDATE_SCREENSHOT) await page.screenshot({ path: path.join(SHOTS, 'activity-busy.png') });
  });

  it('reopened after being closed, shows every task once, including those sent while it was closed', async () => {
    await page.close();
    const whileClosed = [
      await rpc(b(), 'message/send', { agent: 'echo', text: 'sent while the window was closed' }),
      await rpc(b(), 'message/send', { agent: 'fake', text: 'long 3000' }),
    ];
    page = await openWindow();
    for (const t of whileClosed) await rowOf(t.id).waitFor();
    const all = await rpc(b(), 'tasks/list', { pageSize: 100 });
    await vi.waitFor(async () => expect(await page.locator('.row').count()).toBe(all.tasks.length), WAIT);
    const ids = await page
      .locator('.row')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { taskId: string } }).dataset.taskId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(all.tasks.map((t: { id: string }) => t.id).sort());
    await rowOf(whileClosed[1].id).click();
    const expected = Array.from({ length: 3000 }, (_, i) => String(i % 10)).join('');
    await vi.waitFor(async () => expect(await page.locator('#detail .transcript').textContent()).toBe(expected), WAIT);
  });
});
