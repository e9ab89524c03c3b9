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
import { titleOf } from './tray-state.js';

/**
 * The part of an IpcMainInvokeEvent we rely on (electron.d.ts `IpcMainInvokeEvent`): the sending WebContents
 * and frame; `senderFrame` is null once the frame is gone.
 */
export interface IpcSender {
  sender: { id: number };
  senderFrame: { processId: number; routingId: number; url: string } | null;
}

/** Who the approval window is right now: its WebContents and that one's main frame. */
export interface FrameIdentity {
  webContentsId: number;
  processId: number;
  routingId: number;
}

/** The approval window is the person's own channel (in-process): recorded as "person (approval window)". */
export const ANSWERED_BY: Identity = { kind: 'person', via: 'approval window' };

export interface ApprovalIpc {
  listPending(event: IpcSender, raw: unknown): PendingItem[];
  answer(event: IpcSender, raw: unknown): AnswerResult;
}

/**
 * `ownFrame` names the approval window's main frame (undefined while there is no window); `dispatcher` is
 * read at call time (reloads swap it). The sender is checked by identity, never by comparing URL strings:
 * Chromium's canonical file URL of the page differs from Node's pathToFileURL for install paths holding
 * `~` (8.3 short names), `%`, `[`, `]` or a lowercase drive letter (url/url_canon_path.cc kPathCharLookup,
 * url_canon_fileurl.cc FileDoDriveSpec).
 */
export function createApprovalIpc(opts: {
  ownFrame: () => FrameIdentity | undefined;
  dispatcher: () => Dispatcher | undefined;
}): ApprovalIpc {
  const checkSender = (event: IpcSender): void => {
    const own = opts.ownFrame();
    const frame = event.senderFrame;
    const isOwn =
      own !== undefined &&
      frame !== null &&
      event.sender.id === own.webContentsId &&
      frame.processId === own.processId &&
      frame.routingId === own.routingId;
    if (!isOwn)
      throw new Error(
        `refused an IPC call from ${frame ? frame.url || 'a frame' : 'a closed frame'}: only the approval window may call it`,
      );
  };
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

function parseOrThrow<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { message: string; path: PropertyKey[] }[] } };
  },
  raw: unknown,
): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  throw new Error(`invalid IPC payload: ${issues}`);
}
