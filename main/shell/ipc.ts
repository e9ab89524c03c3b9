/** Registers the approval window's IPC on ipcMain; the checks themselves live in approval-ipc.ts. */
import { ipcMain } from 'electron';
import { IPC_CHANNELS } from '../schema/ipc.js';
import type { ApprovalIpc } from './approval-ipc.js';

export function registerApprovalIpc(handlers: ApprovalIpc): () => void {
  ipcMain.handle(IPC_CHANNELS.listPending, (event, raw: unknown) => handlers.listPending(event, raw));
  ipcMain.handle(IPC_CHANNELS.answer, (event, raw: unknown) => handlers.answer(event, raw));
  return () => {
    ipcMain.removeHandler(IPC_CHANNELS.listPending);
    ipcMain.removeHandler(IPC_CHANNELS.answer);
  };
}
