/**
 * The approval window's only door to the main process, bundled to one CommonJS file: a sandboxed preload
 * cannot load ES modules, and its `require` knows only electron, events, timers and url (sandbox.md).
 * It exposes four functions, never ipcRenderer itself.
 */
import { contextBridge, ipcRenderer } from 'electron';
import {
  IPC_CHANNELS,
  OPEN_ACTIVITY_CHANNEL,
  type AnswerResult,
  type ContactorApi,
  type PendingItem,
} from '../main/schema/ipc.js';

const api: ContactorApi = {
  listPending: () => ipcRenderer.invoke(IPC_CHANNELS.listPending) as Promise<PendingItem[]>,
  answer: (taskId, answer) => ipcRenderer.invoke(IPC_CHANNELS.answer, { taskId, answer }) as Promise<AnswerResult>,
  openActivity: () => ipcRenderer.invoke(OPEN_ACTIVITY_CHANNEL) as Promise<void>,
  onChange: (listener) => {
    // The IPC event is not passed on: it carries `sender`, which would leak ipcRenderer into the page.
    const relay = (): void => listener();
    ipcRenderer.on(IPC_CHANNELS.changed, relay);
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.changed, relay);
    };
  },
};

contextBridge.exposeInMainWorld('contactor', api);
