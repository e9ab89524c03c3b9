/**
 * The desktop app on a real Windows desktop, driven by Playwright's Electron support (playwright-core
 * `_electron.launch`): run by .github/workflows/windows.yml on a hosted Windows runner (`npx tsx
 * tests/windows-runner/electron-smoke.ts`), after `npm run build`. It cannot run here (no Windows shell, no tray);
 * `npm run check` type-checks and lints it. What it shows that the fake-electron tests and the Wine lane cannot:
 * - the app started with `--hidden` shows no window, and its tray icon is in the notification area (real bounds);
 * - a permission request from an ACP agent (tests/fixtures/acp/fake-agent.mjs, in a temp config) is listed in the
 *   approval window, opened through the tray's own click handler, which is shown without taking focus;
 * - keys as a person presses them: Enter, Space, a bare A or digit answer nothing; Alt+A allows once, D denies;
 * - Quit stops the bridge (its discovery file is removed).
 * The unpackaged build runs (`electron .`): the packaged exe has the inspect fuse off (electron-builder.yml
 * enableNodeCliInspectArguments), so Playwright cannot attach to it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { readDiscovery, readTokenFile } from '../../main/cli/bridge-client/locate.js';
import { desktopConfig, rpc } from '../shell/desktop-config.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PROBE = path.join(import.meta.dirname, 'tray-probe.cjs');
/** Generous: a hosted runner's first Electron start and the agents' first spawn are slow. */
const TIMEOUT_MS = 120_000;
const POLL_MS = 1_000;

interface Probe {
  trays: Electron.Tray[];
  tooltips: string[];
  waiting: (() => void)[];
}

/** Polls `check` until it returns a value, once a second, for at most TIMEOUT_MS. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function step(text: string): void {
  process.stdout.write(`electron-smoke: ${text}\n`);
}

async function main(): Promise<void> {
  const cfg = desktopConfig();
  // Electron's userData (main/shell/layout.ts) and nothing else of the runner's profile.
  const local = mkdtempSync(path.join(tmpdir(), 'contactor-smoke-local-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { CONTACTOR_CONFIG: cfg.configPath, LOCALAPPDATA: local });

  const app: ElectronApplication = await _electron.launch({
    args: ['-r', PROBE, ROOT, '--hidden'],
    cwd: ROOT,
    env,
    timeout: TIMEOUT_MS,
  });
  try {
    await run(app, cfg);
  } finally {
    await app.close().catch(() => undefined);
    cfg.cleanup();
  }
  // before-quit stops the bridge, which removes its discovery file (server.ts stop).
  assert.equal(existsSync(path.join(cfg.dataDir, 'bridge.json')), false, 'bridge.json is left after Quit');
  step('Quit stopped the bridge');
}

async function run(app: ElectronApplication, cfg: ReturnType<typeof desktopConfig>): Promise<void> {
  // The tray: created after the bridge started (app.ts); the probe wakes us on its first tooltip.
  await app.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const probe = (globalThis as unknown as { __contactorTrayProbe: Probe }).__contactorTrayProbe;
        if (probe.trays.length > 0) resolve();
        else probe.waiting.push(resolve);
      }),
  );
  const tray = await app.evaluate(({ BrowserWindow }) => {
    const probe = (globalThis as unknown as { __contactorTrayProbe: Probe }).__contactorTrayProbe;
    const live = probe.trays.filter((t) => !t.isDestroyed());
    return {
      count: live.length,
      bounds: live[0]?.getBounds(),
      tooltip: probe.tooltips.at(-1),
      visibleWindows: BrowserWindow.getAllWindows()
        .filter((w) => w.isVisible())
        .map((w) => w.getTitle()),
    };
  });
  assert.equal(tray.count, 1, 'one tray icon');
  // Shell_NotifyIconGetRect: a real icon in the notification area has a size.
  assert.ok(
    tray.bounds && tray.bounds.width > 0 && tray.bounds.height > 0,
    `tray bounds ${JSON.stringify(tray.bounds)}`,
  );
  assert.ok(tray.tooltip, 'the tray has a tooltip');
  assert.deepEqual(tray.visibleWindows, [], '--hidden: no visible window');
  step(`started hidden; tray icon at ${JSON.stringify(tray.bounds)}, tooltip "${tray.tooltip}"`);

  const discovery = readDiscovery(cfg.dataDir);
  assert.ok(discovery, 'the bridge wrote its discovery file');
  const bridge = { url: discovery.url, token: readTokenFile(cfg.dataDir) };
  const state = async (id: string): Promise<string> =>
    ((await rpc(bridge, 'tasks/get', { id })) as { status: { state: string } }).status.state;
  const first = (await rpc(bridge, 'message/send', { agent: 'fake', text: 'permission' })) as { id: string };
  const second = (await rpc(bridge, 'message/send', { agent: 'fake', text: 'permission' })) as { id: string };
  assert.equal(await state(first.id), 'input-required');
  assert.equal(await state(second.id), 'input-required');

  // A left click on the icon opens the approvals (tray.ts): the app's own click handler, as Windows calls it.
  const opened = app.waitForEvent('window', { timeout: TIMEOUT_MS });
  await app.evaluate(() => {
    const probe = (globalThis as unknown as { __contactorTrayProbe: Probe }).__contactorTrayProbe;
    probe.trays[0]!.emit('click');
  });
  const page: Page = await opened;
  await page.locator(`article.card[data-task-id="${first.id}"]`).waitFor({ timeout: TIMEOUT_MS });
  await page.locator(`article.card[data-task-id="${second.id}"]`).waitFor({ timeout: TIMEOUT_MS });
  const shown = await app.evaluate(({ BrowserWindow }) =>
    BrowserWindow.getAllWindows()
      .filter((w) => w.isVisible())
      .map((w) => ({ title: w.getTitle(), focused: w.isFocused(), onTop: w.isAlwaysOnTop() })),
  );
  // showInactive (approval-window.ts): a person typing elsewhere keeps the keyboard.
  assert.deepEqual(shown, [{ title: 'Contactor approvals', focused: false, onTop: true }]);
  step('a permission request opened the approval window, shown without taking focus');

  // Keys that must answer nothing, with focus on the first card's Allow once button.
  const card = page.locator(`article.card[data-task-id="${first.id}"]`);
  await card.getByRole('button', { name: /Allow once/ }).focus();
  for (const key of ['Enter', ' ', 'a', '1', '2']) await page.keyboard.press(key);
  // A list request through the same preload IPC arrives in main after any answer those keys sent.
  await page.evaluate(() =>
    (globalThis as unknown as { contactor: { listPending(): Promise<unknown> } }).contactor.listPending(),
  );
  assert.equal(await state(first.id), 'input-required', 'Enter, Space, a bare A or digit answered the permission');
  assert.equal(await state(second.id), 'input-required');
  step('Enter, Space, A, 1 and 2 answered nothing');

  await page.keyboard.press('Alt+a');
  await waitFor('Alt+A to allow', async () => ((await state(first.id)) === 'completed' ? true : undefined));
  const allowed = JSON.stringify(
    ((await rpc(bridge, 'tasks/get', { id: first.id })) as { artifacts: unknown }).artifacts,
  );
  assert.ok(allowed.includes('outcome=allow'), `Alt+A: ${allowed}`);

  const other = page.locator(`article.card[data-task-id="${second.id}"]`);
  await other.getByRole('button', { name: /^Deny/ }).first().focus();
  await page.keyboard.press('d');
  await waitFor('D to deny', async () => ((await state(second.id)) === 'completed' ? true : undefined));
  const denied = JSON.stringify(
    ((await rpc(bridge, 'tasks/get', { id: second.id })) as { artifacts: unknown }).artifacts,
  );
  assert.ok(denied.includes('outcome=reject'), `D: ${denied}`);
  step('Alt+A allowed once, D denied');
}

main().then(
  () => step('all passed'),
  (err: unknown) => {
    process.stderr.write(
      `electron-smoke: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
