/**
 * The main-process side of the activity window's IPC, without Electron: every call checks that it comes
 * from the activity window's own page (ipc-sender.ts) and parses its payload with the shared schema
 * (schema/ipc.ts) before the bridge sees it. What it returns is what `tasks/get` returns, through the
 * bridge's activity view (docs/contract.md#activity); the person acts as "person (activity window)".
 */
import { existsSync } from 'node:fs';
import type { Identity } from '../domain/authority.js';
import { isBridgeError } from '../domain/errors.js';
import type { Part } from '../domain/task.js';
import {
  ActivityAnswerRequestSchema,
  NoArgumentsSchema,
  OpenLogRequestSchema,
  SaveRequestSchema,
  SinceRequestSchema,
  TaskRequestSchema,
  type ActionResult,
  type ActivityDetailItem,
  type ActivitySnapshotItem,
  type ActivityUpdate,
  type AnswerResult,
} from '../schema/ipc.js';
import type { Bridge } from '../wiring/wiring.js';
import { checkSender, parseOrThrow, type FrameIdentity, type IpcSender } from './ipc-sender.js';
import { safeName } from './save-name.js';

/** The activity window is the person's own channel (in-process), like the approval window. */
export const ACTIVITY_IDENTITY: Identity = { kind: 'person', via: 'activity window' };
/** Feed events per `since` answer: the window asks again while `more` (one IPC message stays small). */
export const ACTIVITY_BATCH = 500;
/** Tasks a snapshot lists (newest first). */
export const ACTIVITY_ROWS = 2_000;

export interface ActivityIpcOptions {
  ownFrame: () => FrameIdentity | undefined;
  /** Read at call time (reloads swap the bridge). */
  bridge: () => Bridge | undefined;
  copyText: (text: string) => void;
  /** Electron's shell.openPath: resolves with an error message, '' when it opened. */
  openPath: (file: string) => Promise<string>;
  /** Asks where to save (a dialog) and writes there; false when the person canceled. */
  saveFile: (suggestedName: string, data: Uint8Array) => Promise<boolean>;
}

export interface ActivityIpc {
  snapshot(event: IpcSender, raw: unknown): ActivitySnapshotItem;
  since(event: IpcSender, raw: unknown): ActivityUpdate;
  task(event: IpcSender, raw: unknown): ActivityDetailItem;
  cancel(event: IpcSender, raw: unknown): Promise<ActionResult>;
  answer(event: IpcSender, raw: unknown): AnswerResult;
  sendAgain(event: IpcSender, raw: unknown): Promise<ActionResult>;
  copyTaskId(event: IpcSender, raw: unknown): void;
  openLog(event: IpcSender, raw: unknown): Promise<ActionResult>;
  save(event: IpcSender, raw: unknown): Promise<ActionResult>;
}

export function createActivityIpc(opts: ActivityIpcOptions): ActivityIpc {
  const check = (event: IpcSender): void => checkSender(opts.ownFrame(), event, 'activity window');
  const bridge = (): Bridge => {
    const b = opts.bridge();
    if (!b) throw new Error('the bridge is not running; use the tray menu to reload the config');
    return b;
  };
  return {
    snapshot(event, raw) {
      check(event);
      parseOrThrow(NoArgumentsSchema, raw);
      return bridge().activity.snapshot(ACTIVITY_ROWS);
    },
    since(event, raw) {
      check(event);
      const { cursor } = parseOrThrow(SinceRequestSchema, raw);
      return bridge().activity.since(cursor, ACTIVITY_BATCH, ACTIVITY_ROWS);
    },
    task(event, raw) {
      check(event);
      const { taskId } = parseOrThrow(TaskRequestSchema, raw);
      return bridge().activity.detail(taskId, ACTIVITY_ROWS);
    },
    async cancel(event, raw) {
      check(event);
      const { taskId } = parseOrThrow(TaskRequestSchema, raw);
      return refusals(taskId, async () => {
        await bridge().server.dispatcher.cancel(taskId, ACTIVITY_IDENTITY);
        return taskId;
      });
    },
    answer(event, raw) {
      check(event);
      const req = parseOrThrow(ActivityAnswerRequestSchema, raw);
      try {
        const task = bridge().server.dispatcher.answer(req.taskId, req.answer, ACTIVITY_IDENTITY);
        return { ok: true, taskId: task.id, state: task.status.state };
      } catch (err) {
        if (isBridgeError(err)) return { ok: false, taskId: req.taskId, reason: err.reason, message: err.message };
        throw err;
      }
    },
    async sendAgain(event, raw) {
      check(event);
      const { taskId } = parseOrThrow(TaskRequestSchema, raw);
      return refusals(taskId, async () => {
        const dispatcher = bridge().server.dispatcher;
        const original = dispatcher.get(taskId);
        const brief = original.history.find((m) => m.role === 'user');
        if (!brief) throw new Error(`task ${taskId} has no brief to send again`);
        // A new task under a new messageId: the same words to the same agent, as the person.
        const task = await dispatcher.send({
          agent: original.metadata.agent,
          message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: brief.parts },
          idempotent: true,
          blocking: false,
          delegation: {},
          ...(typeof original.metadata.cwd === 'string' ? { cwd: original.metadata.cwd } : {}),
          by: ACTIVITY_IDENTITY,
        });
        return task.id;
      });
    },
    copyTaskId(event, raw) {
      check(event);
      const { taskId } = parseOrThrow(TaskRequestSchema, raw);
      // Only an id of a task that exists: the window cannot put arbitrary text on the clipboard.
      opts.copyText(bridge().server.dispatcher.get(taskId).id);
    },
    async openLog(event, raw) {
      check(event);
      const { agent } = parseOrThrow(OpenLogRequestSchema, raw);
      const b = bridge();
      if (!b.server.dispatcher.registry.has(agent))
        return { ok: false, taskId: '', message: `no agent named "${agent}" in the config` };
      const file = b.agentLogFile(agent);
      if (!existsSync(file))
        return { ok: false, taskId: '', message: `${agent} has written nothing to its log yet (${file})` };
      const problem = await opts.openPath(file);
      return problem ? { ok: false, taskId: '', message: problem } : { ok: true, taskId: '' };
    },
    async save(event, raw) {
      check(event);
      const req = parseOrThrow(SaveRequestSchema, raw);
      return refusals(req.taskId, async () => {
        const task = bridge().server.dispatcher.get(req.taskId);
        const artifact = task.artifacts.find((a) => a.artifactId === req.artifactId);
        const part = artifact?.parts[req.part];
        if (!part) throw new Error(`task ${req.taskId} has no part ${req.part} in artifact ${req.artifactId}`);
        const { name, data } = saved(part, `${req.artifactId}-${req.part}`);
        if (!(await opts.saveFile(name, data))) throw new Error('not saved: the save dialog was canceled');
        return req.taskId;
      });
    },
  };
}

/** What a part is as a file: its bytes (a file), its JSON (data) or its text; never a fetched link. */
function saved(part: Part, fallback: string): { name: string; data: Uint8Array } {
  if (part.kind === 'text') return { name: `${fallback}.txt`, data: Buffer.from(part.text, 'utf8') };
  if (part.kind === 'data') return { name: `${fallback}.json`, data: Buffer.from(JSON.stringify(part.data, null, 2)) };
  if (part.file.bytes === undefined)
    throw new Error('this file is a link the agent gave, not data the bridge holds: nothing to save');
  return { name: safeName(part.file.name) ?? fallback, data: Buffer.from(part.file.bytes, 'base64') };
}

/** A refusal (a finished task, an unknown id, a canceled dialog) is an answer the window shows. */
async function refusals(taskId: string, act: () => Promise<string>): Promise<ActionResult> {
  try {
    return { ok: true, taskId: await act() };
  } catch (err) {
    return { ok: false, taskId, message: err instanceof Error ? err.message : String(err) };
  }
}
