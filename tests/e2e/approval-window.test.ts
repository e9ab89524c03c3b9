/**
 * The approval window in real Chromium (Debian's, driven by playwright-core): the built renderer loaded from
 * file:// under its CSP, the preload replaced by a stub that forwards to the main-process IPC handlers
 * (approval-ipc.ts, sender check included) of a REAL bridge with real agents: a permission request from the
 * fake ACP agent and a decision from the echo demo agent.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApprovalIpc } from '../../main/shell/approval-ipc.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { desktopConfig, rpc, testEnv, type DesktopConfig } from '../shell/desktop-config.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGE = path.join(ROOT, 'out', 'renderer', 'index.html');
const SCREENSHOT = path.join(ROOT, 'docs', 'approval-window.png');
const WAIT = { timeout: TEST_TIMEOUT_MS, interval: 50 };

/** What the page's global scope holds, as seen from code passed to page.evaluate (the tests compile without DOM types). */
interface PageGlobals {
  document: { activeElement: { textContent: string | null } | null };
  contactor: { answer(taskId: string, answer: string): Promise<unknown> } | Record<string, unknown>;
  __listeners: Set<() => void>;
  __contactorList(): Promise<unknown>;
  __contactorAnswer(taskId: string, answer: string): Promise<unknown>;
}

describe.skipIf(skipWithoutChromium('the approval-window e2e tests'))('approval window (Chromium)', () => {
  let cfg: DesktopConfig;
  let bridge: Bridge;
  let browser: Browser;
  let page: Page;
  let unlisten: () => void;
  const b = () => ({ url: bridge.url, token: bridge.token });
  const state = async (id: string): Promise<string> => (await rpc(b(), 'tasks/get', { id })).status.state;
  const focused = (): Promise<string> =>
    page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.textContent ?? '');
  /** Every answer the page sent, as `taskId answer`, in order. */
  const answerCalls: string[] = [];
  /**
   * The answers the page has sent so far. A listPending call made now reaches main through the same exposed
   * bindings after any answer a key handler already sent (playwright-core delivers binding calls in order), so
   * when it returns, the list is complete: no clock needed to prove that a key answered nothing.
   */
  const answersSoFar = async (): Promise<string[]> => {
    await page.evaluate(() => (globalThis as unknown as PageGlobals).__contactorList());
    return [...answerCalls];
  };

  beforeAll(async () => {
    if (!existsSync(PAGE))
      throw new Error(`${PAGE} is missing: run \`node scripts/build.mjs\` first (tests/global-setup.ts does)`);
    cfg = desktopConfig();
    bridge = await createBridge({ configPath: cfg.configPath, env: testEnv() });
    await bridge.start();
    // The page stands for the approval window's main frame: one WebContents, one frame identity.
    const frame = { webContentsId: 1, processId: 1, routingId: 1 };
    const ipc = createApprovalIpc({ ownFrame: () => frame, dispatcher: () => bridge.server.dispatcher });
    const sender = () => ({ sender: { id: 1 }, senderFrame: { processId: 1, routingId: 1, url: page.url() } });

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 440, height: 600 }, colorScheme: 'dark' });
    page.on('pageerror', (err) => console.error('renderer error:', err));
    // The preload's three functions, backed by the main-process handlers; the sender is the page's real URL.
    await page.exposeFunction('__contactorList', () => ipc.listPending(sender(), undefined));
    await page.exposeFunction('__contactorAnswer', (taskId: string, answer: string) => {
      answerCalls.push(`${taskId} ${answer}`);
      return ipc.answer(sender(), { taskId, answer });
    });
    await page.addInitScript(() => {
      const w = globalThis as unknown as PageGlobals;
      w.__listeners = new Set();
      w.contactor = {
        listPending: () => w.__contactorList(),
        answer: (taskId: string, answer: string) => w.__contactorAnswer(taskId, answer),
        onChange: (cb: () => void) => {
          w.__listeners.add(cb);
          return () => w.__listeners.delete(cb);
        },
        openActivity: async () => undefined,
      };
    });
    // Main's `notifyChanged` on feed events.
    unlisten = bridge.server.dispatcher.feed.listen((event) => {
      if (event.kind !== 'status-update') return;
      void page
        .evaluate(() => (globalThis as unknown as PageGlobals).__listeners.forEach((cb) => cb()))
        .catch(() => undefined);
    });
  });

  afterAll(async () => {
    unlisten?.();
    await browser?.close();
    await bridge?.stop();
    cfg?.cleanup();
  });

  let permission: { id: string };
  let decision: { id: string };

  it('lists a permission and a decision oldest first, with Deny focused', async () => {
    permission = await rpc(b(), 'message/send', { agent: 'fake', text: 'permission' });
    decision = await rpc(b(), 'message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
    expect([permission, decision].map((t) => (t as unknown as { status: { state: string } }).status.state)).toEqual([
      'input-required',
      'input-required',
    ]);

    await page.goto(pathToFileURL(PAGE).href);
    await page.locator('article.card').nth(1).waitFor();
    const cards = page.locator('article.card');
    expect(await cards.count()).toBe(2);
    expect(await page.locator('#count').textContent()).toBe('2');

    const first = cards.nth(0);
    expect(await first.getAttribute('data-kind')).toBe('permission');
    expect(await first.locator('.agent').textContent()).toBe('fake');
    expect(await first.locator('.workspace').textContent()).toBe(cfg.root);
    expect(await first.locator('.command').textContent()).toBe('write');
    expect(await first.locator('.paths').textContent()).toBe('/tmp/write.txt:3');
    expect(await first.locator('button.choice .label').allTextContents()).toEqual(['Deny', 'Allow once']);

    const second = cards.nth(1);
    expect(await second.getAttribute('data-kind')).toBe('decision');
    expect(await second.locator('.question').textContent()).toBe('Which one should I go with: YAML or TOML?');
    expect(await second.locator('button.choice .label').allTextContents()).toEqual(['★ YAML', 'TOML']);
    expect(await second.locator('button.recommended .label').textContent()).toBe('★ YAML');

    expect(await focused()).toMatch(/^Deny/);
    // The footer names the keys that work (renderer/app.ts): no bare key but D answers anything.
    expect(await page.locator('footer.keys').textContent()).toMatch(/D deny\s*Alt\+A allow once\s*Alt\+1–9 option/);
    // The README's picture is refreshed on request only: a test run leaves the working tree as it found it.
    const png = await page.screenshot(process.env.CONTACTOR_UPDATE_SCREENSHOT ? { path: SCREENSHOT } : {});
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('Enter, Space and a bare number never answer; Alt+number chooses the decision’s option', async () => {
    await page.keyboard.press('ArrowDown');
    const decisionCard = page.locator(`article.card[data-task-id="${decision.id}"]`);
    expect(await decisionCard.getAttribute('class')).toContain('selected');
    await decisionCard.locator('button.choice').first().focus();
    const before = answerCalls.length;
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    await page.keyboard.press('1');
    await page.keyboard.press('2');
    expect((await answersSoFar()).slice(before)).toEqual([]);
    expect(await state(decision.id)).toBe('input-required');
    expect(await decisionCard.locator('button.choice kbd').allTextContents()).toEqual(['Alt+1', 'Alt+2']);

    await page.keyboard.press('Alt+2');
    await decisionCard.locator('.status', { hasText: '✓ Chose TOML' }).waitFor();
    await vi.waitFor(async () => expect(await state(decision.id)).toBe('completed'), WAIT);
    expect(JSON.stringify((await rpc(b(), 'tasks/get', { id: decision.id })).artifacts)).toContain(
      'Going with TOML. Done.',
    );
    await decisionCard.waitFor({ state: 'detached' });
  });

  it('a click on Allow once answers the permission and the agent carries on', async () => {
    const card = page.locator(`article.card[data-task-id="${permission.id}"]`);
    await card.getByRole('button', { name: /Allow once/ }).click();
    await card.locator('.status', { hasText: '✓ Allowed once' }).waitFor();
    await vi.waitFor(async () => expect(await state(permission.id)).toBe('completed'), WAIT);
    const done = await rpc(b(), 'tasks/get', { id: permission.id });
    expect(JSON.stringify(done.artifacts)).toContain('outcome=allow');
    expect(done.metadata.answeredBy).toBe('person (approval window)');
    await page.locator('#empty', { hasText: 'Nothing needs you right now.' }).waitFor();
  });

  it('a question arriving while open appears by itself; D denies it from the keyboard', async () => {
    const task = await rpc(b(), 'message/send', { agent: 'fake', text: 'permission' });
    const card = page.locator(`article.card[data-task-id="${task.id}"]`);
    await card.waitFor();
    await vi.waitFor(async () => expect(await focused()).toMatch(/^Deny/), WAIT);
    await page.keyboard.press('d');
    await card.locator('.status', { hasText: '✓ Denied' }).waitFor();
    await vi.waitFor(async () => expect(await state(task.id)).toBe('completed'), WAIT);
    expect(JSON.stringify((await rpc(b(), 'tasks/get', { id: task.id })).artifacts)).toContain('outcome=reject');
  });

  it('a bare A does nothing, Alt+A allows once; a second answer to the same question is refused', async () => {
    const task = await rpc(b(), 'message/send', { agent: 'fake', text: 'permission' });
    const card = page.locator(`article.card[data-task-id="${task.id}"]`);
    await card.waitFor();
    await vi.waitFor(async () => expect(await focused()).toMatch(/^Deny/), WAIT);
    const before = answerCalls.length;
    await page.keyboard.press('a');
    await page.keyboard.press('2');
    expect((await answersSoFar()).slice(before)).toEqual([]);
    expect(await state(task.id)).toBe('input-required');
    await page.keyboard.press('Alt+a');
    await vi.waitFor(async () => expect(await state(task.id)).toBe('completed'), WAIT);
    const again = await page.evaluate(
      (id) =>
        ((globalThis as unknown as PageGlobals).contactor as { answer(t: string, a: string): Promise<unknown> }).answer(
          id,
          'allow',
        ),
      task.id,
    );
    expect(again).toMatchObject({ ok: false, reason: 'already-answered' });
  });
});
