/**
 * What a person reads in the windows (SECURITY.md#what-a-person-reads), in real Chromium: the built approval
 * and activity pages loaded from file:// under their CSP, their preload APIs replaced by synthetic ones whose
 * every string an agent wrote carries one sequence of the table. The DOM already refuses markup; what is
 * checked here is that a bidi override, a zero-width or tag character, or a control shows as its mark in the
 * command, the title, the paths, the brief, the last line, the question and the reply.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const OUT = path.resolve(import.meta.dirname, '..', '..', 'out', 'renderer');
const WAIT = { timeout: TEST_TIMEOUT_MS, interval: 50 };

/** [what, the sequence, how a person sees it] */
const SEQUENCES: [string, string, string][] = [
  ['CSI cursor up and erase line', '\u001b[1A\u001b[2K', '␛[1A␛[2K'],
  ['CR', '\r', '␍'],
  ['BS', '\b\b\b', '␈␈␈'],
  ['OSC 52 clipboard write', '\u001b]52;c;cm0gLXJm\u0007', '␛]52;c;cm0gLXJm␇'],
  ['OSC 8 link', '\u001b]8;;https://evil.test\u001b\\link\u001b]8;;\u001b\\', '␛]8;;https://evil.test␛\\link␛]8;;␛\\'],
  ['DCS', '\u001bP1$r0m\u001b\\', '␛P1$r0m␛\\'],
  ['C1 CSI', '\u009b2J', '<U+009B>2J'],
  ['RLO', '\u202E', '<U+202E>'],
  ['zero-width space and joiner', '\u200B\u200D', '<U+200B><U+200D>'],
  ['tag characters', '\u{E0001}\u{E0072}\u{E006D}', '<U+E0001><U+E0072><U+E006D>'],
];
const agentText = (sequence: string) => `rm -rf ~/work ${sequence} ls -la`;
const shownAs = (mark: string) => `rm -rf ~/work ${mark} ls -la`;

/** The page's globals as code passed to page.evaluate sees them (the tests compile without DOM types). */
interface PageGlobals {
  contactor: unknown;
  contactorActivity: unknown;
}

describe.skipIf(skipWithoutChromium('the windows’ visible-text tests'))('what a person reads in the windows', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  async function open(page: string, install: (texts: string[]) => void): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    p.on('pageerror', (err) => console.error('renderer error:', err));
    await p.addInitScript(
      install,
      SEQUENCES.map(([, sequence]) => agentText(sequence)),
    );
    await p.goto(pathToFileURL(path.join(OUT, page)).href);
    return p;
  }

  it('the approval window: command, title, paths, workspace and request', async () => {
    const page = await open('index.html', (texts) => {
      const items = texts.map((text, i) => ({
        taskId: `t${i}`,
        agent: 'dsh',
        request: text,
        command: text,
        pending: {
          kind: 'permission',
          requestId: `r${i}`,
          toolCall: { title: `title ${text}`, kind: 'execute', locations: [{ path: text }] },
          options: [
            { optionId: 'ok', name: 'Allow once', kind: 'allow_once' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
          workspace: text,
          createdAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2099-01-01T00:30:00.000Z',
        },
      }));
      (globalThis as unknown as PageGlobals).contactor = {
        listPending: async () => items,
        answer: async () => ({ ok: true }),
        onChange: () => () => undefined,
        openActivity: async () => undefined,
      };
    });
    await page
      .locator('article.card')
      .nth(SEQUENCES.length - 1)
      .waitFor();
    for (const [i, [what, , mark]] of SEQUENCES.entries()) {
      const card = page.locator(`article.card[data-task-id="t${i}"]`);
      for (const field of ['.command', '.paths', '.workspace', '.request'])
        expect(await card.locator(field).textContent(), `${what}: ${field}`).toBe(shownAs(mark));
      expect(await card.locator('.title').textContent(), `${what}: .title`).toBe(`title ${shownAs(mark)}`);
    }
    await page.close();
  });

  it('the activity window: brief, last line, question, reply and status', async () => {
    const page = await open('activity.html', (texts) => {
      const now = Date.now();
      const rows = texts.map((text, i) => ({
        taskId: `t${i}`,
        contextId: `c${i}`,
        agent: 'dsh',
        caller: 'person',
        chain: ['dsh'],
        brief: text,
        lastLine: text,
        state: 'input-required',
        since: new Date(now).toISOString(),
        createdAt: new Date(now).toISOString(),
      }));
      const detail = (taskId: string) => {
        const i = Number(taskId.slice(1));
        const text = texts[i]!;
        return {
          cursor: 'run:0',
          row: rows[i],
          task: {
            kind: 'task',
            id: taskId,
            contextId: `c${i}`,
            status: {
              state: 'input-required',
              timestamp: new Date(now).toISOString(),
              message: { kind: 'message', messageId: 's', role: 'agent', parts: [{ kind: 'text', text }] },
            },
            history: [{ kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text }] }],
            artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text }] }],
            metadata: {
              agent: 'dsh',
              requiresReview: true,
              createdAt: new Date(now).toISOString(),
              delegationDepth: 0,
              visitedAgents: ['dsh'],
              pending: {
                kind: 'permission',
                requestId: `r${i}`,
                toolCall: { title: text, kind: 'execute' },
                options: [{ optionId: 'no', name: 'Reject', kind: 'reject_once' }],
                createdAt: '2026-01-01T00:00:00.000Z',
                expiresAt: '2099-01-01T00:30:00.000Z',
              },
            },
          },
          notes: [{ kind: 'tool_call', text, data: { kind: 'execute' } }],
          children: [],
        };
      };
      (globalThis as unknown as PageGlobals).contactorActivity = {
        snapshot: async () => ({ cursor: 'run:0', rows, agents: [], summary: {}, truncated: false }),
        since: async () => ({ kind: 'events', cursor: 'run:0', entries: [], rows: [], more: false }),
        task: async (taskId: string) => detail(taskId),
        onChange: () => () => undefined,
        onShowTask: () => () => undefined,
      };
    });
    await page
      .locator('.row')
      .nth(SEQUENCES.length - 1)
      .waitFor();
    for (const [i, [what, , mark]] of SEQUENCES.entries()) {
      const row = page.locator(`.row[data-task-id="t${i}"]`);
      expect(await row.locator('.brief').textContent(), `${what}: brief`).toBe(shownAs(mark));
      expect(await row.locator('.last').textContent(), `${what}: last line`).toBe(shownAs(mark));
      await row.click();
      await page.locator('#detail .detail-head .task-id', { hasText: `t${i}` }).waitFor();
      const box = page.locator('#detail');
      expect(await box.locator('.question p').first().textContent(), `${what}: question`).toBe(
        `dsh wants to: ${shownAs(mark)}`,
      );
      expect(await box.locator('.brief-text').textContent(), `${what}: brief`).toBe(shownAs(mark));
      expect(await box.locator('.status-text').textContent(), `${what}: status`).toBe(shownAs(mark));
      expect(await box.locator('.note-text').textContent(), `${what}: tool call`).toBe(shownAs(mark));
      await expect.poll(() => box.locator('.transcript').textContent(), WAIT).toBe(shownAs(mark));
    }
    await page.close();
  });

  it('an emoji where the transcript starts a new block stays whole: no half of it shows as a mark', async () => {
    const page = await open('activity.html', () => {
      const at = new Date().toISOString();
      const row = {
        taskId: 'e',
        contextId: 'c',
        agent: 'dsh',
        caller: 'person',
        chain: ['dsh'],
        brief: 'emoji',
        state: 'completed',
        since: at,
        createdAt: at,
      };
      // 32,767 characters, then a pair: a block holds 32,768 (activity-detail.ts BLOCK_CHARS).
      const reply = `${'x'.repeat(32_767)}😀 end`;
      (globalThis as unknown as PageGlobals).contactorActivity = {
        snapshot: async () => ({ cursor: 'run:0', rows: [row], agents: [], summary: {}, truncated: false }),
        since: async () => ({ kind: 'events', cursor: 'run:0', entries: [], rows: [], more: false }),
        task: async () => ({
          cursor: 'run:0',
          row,
          task: {
            kind: 'task',
            id: 'e',
            contextId: 'c',
            status: { state: 'completed', timestamp: at },
            history: [],
            artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: reply }] }],
            metadata: { agent: 'dsh', requiresReview: true, createdAt: at, delegationDepth: 0, visitedAgents: [] },
          },
          notes: [],
          children: [],
        }),
        onChange: () => () => undefined,
        onShowTask: () => () => undefined,
      };
    });
    await page.locator('.row[data-task-id="e"]').click();
    const transcript = page.locator('#detail .transcript');
    await expect.poll(() => transcript.textContent(), WAIT).toMatch(/😀 end$/);
    expect(await transcript.textContent()).not.toContain('<U+');
    await page.close();
  });
});
