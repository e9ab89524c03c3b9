/** Registers the desktop windows' IPC on ipcMain; the checks themselves live in approval-ipc.ts and activity-ipc.ts. */
import { ipcMain } from 'electron';
import { ACTIVITY_CHANNELS, IPC_CHANNELS, OPEN_ACTIVITY_CHANNEL } from '../schema/ipc.js';
import type { ActivityIpc } from './activity-ipc.js';
import type { ApprovalIpc } from './approval-ipc.js';

export function registerApprovalIpc(handlers: ApprovalIpc): () => void {
  ipcMain.handle(IPC_CHANNELS.listPending, (event, raw: unknown) => handlers.listPending(event, raw));
  ipcMain.handle(IPC_CHANNELS.answer, (event, raw: unknown) => handlers.answer(event, raw));
  ipcMain.handle(OPEN_ACTIVITY_CHANNEL, (event, raw: unknown) => handlers.openActivity(event, raw));
  return () => {
    ipcMain.removeHandler(IPC_CHANNELS.listPending);
    ipcMain.removeHandler(IPC_CHANNELS.answer);
    ipcMain.removeHandler(OPEN_ACTIVITY_CHANNEL);
  };
}

/** Every activity channel but `changed` (main → renderer) goes to the handler of the same name. */
export function registerActivityIpc(handlers: ActivityIpc): () => void {
  const names = Object.keys(ACTIVITY_CHANNELS).filter((n) => n !== 'changed') as (keyof ActivityIpc)[];
  for (const name of names) {
    ipcMain.handle(ACTIVITY_CHANNELS[name], (event, raw: unknown) => handlers[name](event, raw));
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(ACTIVITY_CHANNELS[name]);
  };
}
