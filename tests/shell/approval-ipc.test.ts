/**
 * The approval window must accept its own page's IPC wherever the app is installed. The
 * frame URL comes from the same steps Electron and Chromium take (chromium-file-url.ts names them).
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { Dispatcher } from '../../main/shell/bridge-host.js';
import { fake } from './fake-electron.js';

vi.mock('electron', () => import('./fake-electron.js'));
const { ApprovalWindow } = await import('../../main/shell/approval-window.js');
const { createApprovalIpc } = await import('../../main/shell/approval-ipc.js');

const dispatcher = { pending: () => [] } as unknown as Dispatcher;

describe('the approval window IPC sender check', () => {
  it.each([
    [
      'an 8.3 short name in %TEMP% (portable-style unpack)',
      'C:\\Users\\JOHNSM~1\\AppData\\Local\\Temp\\x\\resources\\app.asar\\out\\renderer\\index.html',
    ],
    ['a % in the install path', 'C:\\Users\\me\\Apps\\100% Contactor\\resources\\app.asar\\out\\renderer\\index.html'],
    ['brackets in the install path', 'D:\\Tools [x64]\\Contactor\\resources\\app.asar\\out\\renderer\\index.html'],
    [
      'a lowercase drive letter',
      'c:\\users\\me\\appdata\\local\\programs\\contactor\\resources\\app.asar\\out\\renderer\\index.html',
    ],
  ])('accepts its own page installed under %s', async (_what, html) => {
    fake.reset();
    const window = new ApprovalWindow({ preload: 'C:\\p\\index.cjs', rendererHtml: html, trayBounds: () => undefined });
    window.show();
    const win = fake.windows.filter((w) => w.options.focusable !== false).at(-1)!;
    await vi.waitFor(() => expect(win.webContents.mainFrame.url).not.toBe(''));
    // What the old check compared against, and why it refused: the strings differ.
    expect(win.webContents.mainFrame.url).not.toBe(pathToFileURL(html, { windows: true }).href);

    const ipc = createApprovalIpc({ ownFrame: () => window.ownFrame(), dispatcher: () => dispatcher });
    const event = { sender: win.webContents, senderFrame: win.webContents.mainFrame };
    expect(ipc.listPending(event, undefined)).toEqual([]);
  });

  it('refuses every other frame, and everything once the window is gone', async () => {
    fake.reset();
    const window = new ApprovalWindow({
      preload: '/p.cjs',
      rendererHtml: '/opt/c/index.html',
      trayBounds: () => undefined,
    });
    window.show();
    const win = fake.windows.filter((w) => w.options.focusable !== false).at(-1)!;
    const ipc = createApprovalIpc({ ownFrame: () => window.ownFrame(), dispatcher: () => dispatcher });
    const main = win.webContents.mainFrame;
    expect(() =>
      ipc.listPending({ sender: win.webContents, senderFrame: { ...main, routingId: 2 } }, undefined),
    ).toThrow(/only the approval window/);
    expect(() =>
      ipc.listPending({ sender: win.webContents, senderFrame: { ...main, processId: 1 } }, undefined),
    ).toThrow(/only the approval window/);
    expect(() => ipc.listPending({ sender: { id: win.webContents.id + 1 }, senderFrame: main }, undefined)).toThrow(
      /only the approval window/,
    );
    window.destroy();
    expect(() => ipc.listPending({ sender: win.webContents, senderFrame: main }, undefined)).toThrow(
      /only the approval window/,
    );
  });
});
