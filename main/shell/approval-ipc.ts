/**
 * The main-process side of the approval window's IPC, without Electron: every call checks that it comes
 * from the app's own page (security checklist #17) and parses its payload with the shared schema before
 * the bridge sees it. ipc.ts registers these on ipcMain.
 */
import type { Identity } from '../domain/authority.js';
import { isBridgeError } from '../domain/errors.js';
import type { Task } from '../domain/task.js';
import { AnswerRequestSchema, ListPendingRequestSchema, type AnswerResult, type PendingItem } from '../schema/ipc.js';
import type { Dispatcher } from './bridge-host.js';
import { commandOf } from '../domain/pending.js';
import { checkSender as checkOwn, parseOrThrow, type FrameIdentity, type IpcSender } from './ipc-sender.js';
import { titleOf } from './tray-state.js';

export type { FrameIdentity, IpcSender } from './ipc-sender.js';

/** The approval window is the person's own channel (in-process): recorded as "person (approval window)". */
export const ANSWERED_BY: Identity = { kind: 'person', via: 'approval window' };

export interface ApprovalIpc {
  listPending(event: IpcSender, raw: unknown): PendingItem[];
  answer(event: IpcSender, raw: unknown): AnswerResult;
  openActivity(event: IpcSender, raw: unknown): void;
}

/**
 * `ownFrame` names the approval window's main frame (undefined while there is no window); `dispatcher` is
 * read at call time (reloads swap it). The sender is checked by identity (ipc-sender.ts).
 */
export function createApprovalIpc(opts: {
  ownFrame: () => FrameIdentity | undefined;
  dispatcher: () => Dispatcher | undefined;
  /** The approval window's link to the activity window. */
  openActivity?: () => void;
}): ApprovalIpc {
  const checkSender = (event: IpcSender): void => checkOwn(opts.ownFrame(), event, 'approval window');
  const bridge = (): Dispatcher => {
    const d = opts.dispatcher();
    if (!d) throw new Error('the bridge is not running; use the tray menu to reload the config');
    return d;
  };
  return {
    listPending(event, raw) {
      checkSender(event);
      parseOrThrow(ListPendingRequestSchema, raw);
      return bridge()
        .pending()
        .map(pendingItemOf)
        .filter((i): i is PendingItem => i !== undefined);
    },
    openActivity(event, raw) {
      checkSender(event);
      parseOrThrow(ListPendingRequestSchema, raw);
      opts.openActivity?.();
    },
    answer(event, raw) {
      checkSender(event);
      const req = parseOrThrow(AnswerRequestSchema, raw);
      try {
        const task = bridge().answer(req.taskId, req.answer, ANSWERED_BY);
        return { ok: true, taskId: task.id, state: task.status.state };
      } catch (err) {
        if (isBridgeError(err)) return { ok: false, taskId: req.taskId, reason: err.reason, message: err.message };
        throw err;
      }
    },
  };
}

export function pendingItemOf(task: Task): PendingItem | undefined {
  const pending = task.metadata.pending;
  if (!pending) return undefined;
  const command = pending.kind === 'permission' ? commandOf(pending.toolCall) || pending.toolCall.title : undefined;
  return {
    taskId: task.id,
    agent: task.metadata.agent,
    request: titleOf(task, 300),
    ...(command ? { command } : {}),
    pending,
  };
}
