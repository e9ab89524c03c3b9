/**
 * The activity window's only door to the main process, bundled to one CommonJS file like preload/index.ts
 * (a sandboxed preload loads no ES modules). It exposes functions only, never ipcRenderer itself.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { ACTIVITY_CHANNELS as C, type ActivityApi } from '../main/schema/ipc.js';

const api: ActivityApi = {
  snapshot: () => ipcRenderer.invoke(C.snapshot),
  since: (cursor) => ipcRenderer.invoke(C.since, { cursor }),
  task: (taskId) => ipcRenderer.invoke(C.task, { taskId }),
  cancel: (taskId) => ipcRenderer.invoke(C.cancel, { taskId }),
  answer: (taskId, answer) => ipcRenderer.invoke(C.answer, { taskId, answer }),
  sendAgain: (taskId) => ipcRenderer.invoke(C.sendAgain, { taskId }),
  copyTaskId: (taskId) => ipcRenderer.invoke(C.copyTaskId, { taskId }),
  openLog: (agent) => ipcRenderer.invoke(C.openLog, { agent }),
  save: (taskId, artifactId, part) => ipcRenderer.invoke(C.save, { taskId, artifactId, part }),
  onChange: (listener) => {
    // The IPC event is not passed on: it carries `sender`, which would leak ipcRenderer into the page.
    const relay = (): void => listener();
    ipcRenderer.on(C.changed, relay);
    return () => {
      ipcRenderer.removeListener(C.changed, relay);
    };
  },
  onShowTask: (listener) => {
    // Only a string reaches the page, never the IPC event (as above).
    const relay = (_event: unknown, taskId: unknown): void => {
      if (typeof taskId === 'string') listener(taskId);
    };
    ipcRenderer.on(C.showTask, relay);
    return () => {
      ipcRenderer.removeListener(C.showTask, relay);
    };
  },
};

contextBridge.exposeInMainWorld('contactorActivity', api);
