/**
 * Following one delegated task for a tool call: the bridge's stream (`message/stream`, then
 * `tasks/resubscribe` after an answer) read until the task stops or the wait bound passes, its text and
 * state forwarded as MCP progress notifications. Stopping to read never stops the task: it goes on in the
 * bridge and the result says how to follow it.
 */
import type { BridgeRpc } from './bridge-rpc.js';

export interface Progress {
  /** One notification: the agent's streamed text, or its new state. */
  (message: string): void;
}

/** What a stream event says: the task it belongs to, its state, and text the agent streamed. */
function eventFacts(result: unknown): { taskId?: string; state?: string; text?: string } {
  const r = (result ?? {}) as Record<string, unknown>;
  const status = r.status as { state?: unknown } | undefined;
  const state = typeof status?.state === 'string' ? status.state : undefined;
  const taskId = r.kind === 'task' ? (r.id as string) : (r.taskId as string | undefined);
  let text: string | undefined;
  if (r.kind === 'artifact-update') {
    const parts = ((r.artifact as { parts?: { text?: unknown }[] } | undefined)?.parts ?? []) as { text?: unknown }[];
    text = parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('') || undefined;
  }
  return {
    ...(typeof taskId === 'string' ? { taskId } : {}),
    ...(state ? { state } : {}),
    ...(text ? { text } : {}),
  };
}

/**
 * Reads `method` until the bridge ends the stream, `waitMs` passes or `signal` aborts (the client went
 * away); resolves with the task id the stream named (undefined only when it named none).
 */
export async function follow(
  rpc: BridgeRpc,
  call: { method: string; params: unknown },
  opts: { waitMs: number; signal: AbortSignal; progress?: Progress; onTaskId?: (id: string) => void },
): Promise<{ taskId: string | undefined; timedOut: boolean }> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  opts.signal.addEventListener('abort', abort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, opts.waitMs);
  let taskId: string | undefined;
  let lastState: string | undefined;
  try {
    await rpc.stream(
      call.method,
      call.params,
      (result) => {
        const facts = eventFacts(result);
        if (facts.taskId && taskId === undefined) {
          taskId = facts.taskId;
          opts.onTaskId?.(facts.taskId);
        }
        if (facts.text) opts.progress?.(facts.text);
        if (facts.state && facts.state !== lastState) {
          lastState = facts.state;
          opts.progress?.(`[${facts.state}]`);
        }
      },
      stop.signal,
    );
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', abort);
  }
  return { taskId, timedOut };
}
