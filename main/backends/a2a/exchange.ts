/**
 * Seeing one send to a remote peer through: the send itself (streamed, or non-blocking and then
 * polled), resuming a dropped stream (resubscribe with Last-Event-ID, then polling), re-reading a
 * parked task, and forwarding a cancel. All of it updates one PeerReply.
 */
import type { Message } from '../../domain/task.js';
import type { TurnReporter } from '../../ports.js';
import type { PeerClient, StreamFrame } from './client.js';
import { PeerError } from './fetch.js';
import type { PeerEndpoint } from './peer.js';
import type { PeerReply } from './reply.js';
import { isAbort } from '../shared/fetch-util.js';

export interface Exchange {
  client: PeerClient;
  peer: PeerEndpoint;
  reply: PeerReply;
  report: TurnReporter;
  signal: AbortSignal;
  /** Resubscribe attempts after a stream drops, before falling back to polling. */
  resubscribeAttempts: number;
  pollIntervalMs: number;
  /** The last SSE id seen: a contactor peer resumes after it. */
  lastEventId?: string;
}

const CANCEL_TIMEOUT_MS = 5000;

export async function sendAndFollow(ex: Exchange, message: Message): Promise<void> {
  const { client, reply, signal } = ex;
  if (message.taskId) {
    // The parked task as the peer has it now; a peer that lost it answers the send with an error.
    const parked = await client.get(message.taskId, signal).catch(() => undefined);
    if (parked?.kind === 'task') reply.resumeFrom(parked.task);
  }
  if (!ex.peer.streaming) {
    // Not blocking: the task id comes back at once, so a cancel can be forwarded while it runs, and
    // the HTTP wait is not the execution deadline (Hermes PR #102306); the task is then polled.
    reply.apply(await client.send(message, signal));
    if (!reply.settled) await poll(ex);
    return;
  }
  await follow(ex, client.stream(message, signal));
}

/**
 * A parked task is read once more: stream events carry no task metadata (a contactor peer's
 * structured decision is there), and a peer that replayed an old parked event may in fact be running
 * again — then it is followed until it really settles.
 */
export async function confirmParked(ex: Exchange): Promise<void> {
  const { client, reply, signal } = ex;
  if (reply.state !== 'input-required' || reply.taskId === undefined) return;
  const latest = await client.get(reply.taskId, signal).catch((err: unknown) => {
    if (isAbort(err)) throw err;
    return undefined;
  });
  if (latest === undefined) return;
  reply.apply(latest);
  if (!reply.settled) await (ex.peer.streaming ? follow(ex) : poll(ex));
}

async function follow(ex: Exchange, first?: AsyncGenerator<StreamFrame>): Promise<void> {
  const { client, reply, report, signal } = ex;
  for (let attempt = 0; ; attempt += 1) {
    let broke: unknown;
    if (first === undefined || attempt > 0) {
      if (attempt > 0) {
        report.receipt({ resubscribed: attempt });
        await sleep(150 * attempt, signal);
      }
      first = client.resubscribe(reply.taskId!, signal, ex.lastEventId);
    }
    try {
      for await (const frame of first) {
        if (frame.id !== undefined) ex.lastEventId = frame.id;
        reply.apply(frame.event);
        if (reply.settled) return;
      }
    } catch (err) {
      if (signal.aborted || isAbort(err)) throw err;
      broke = err;
    }
    if (reply.taskId === undefined)
      throw broke ?? new PeerError('the peer closed the stream before naming a task', { retryable: true });
    // A refused resubscribe (e.g. the task ended meanwhile) is answered by reading the task instead.
    const refused = attempt > 0 && broke instanceof PeerError && broke.code !== undefined;
    if (attempt >= ex.resubscribeAttempts || refused) break;
  }
  await poll(ex);
}

async function poll(ex: Exchange): Promise<void> {
  const { client, reply, signal } = ex;
  let wait = ex.pollIntervalMs;
  while (!reply.settled) {
    reply.apply(await client.get(reply.taskId!, signal));
    if (reply.settled) return;
    await sleep(wait, signal);
    wait = Math.min(wait * 2, 5000);
  }
}

/** On abort: tell the peer to stop its task too (best effort, bounded), and say in the receipt how it went. */
export async function forwardCancel(ex: Pick<Exchange, 'client' | 'reply' | 'report'>): Promise<void> {
  const { client, reply, report } = ex;
  if (reply.taskId === undefined || reply.settled) return;
  try {
    await client.cancel(reply.taskId, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
    report.receipt({ peerCancel: 'sent' });
  } catch (err) {
    report.receipt({ peerCancel: `failed: ${(err as Error).message}` });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
