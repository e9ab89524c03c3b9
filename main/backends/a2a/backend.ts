/**
 * `a2a`: a remote A2A agent by URL — Hermes's A2A gateway, an ADK agent, another machine's contactor.
 * The peer's card decides the wire: its first JSON-RPC interface, A2A 1.0 before 0.3 (or the version
 * pinned in config); it is streamed to when its card says `streaming`, else sent to blocking (and
 * polled if it answers early). A dropped stream is resumed with `tasks/resubscribe` / SubscribeToTask
 * (with Last-Event-ID, which a contactor peer honours), then by polling the task.
 *
 * input-required, both ways — what was chosen, and why:
 * - The peer's task parks in input-required. This turn then ENDS with the peer's question as its last
 *   text: when the peer is a contactor bridge parked on a decision, the question is rendered as the
 *   decision block, so our runtime parks OUR task on the same structured decision; any other question
 *   (free text, Hermes's `[INPUT_REQUIRED]`) completes the turn with the question as the reply, and the
 *   receipt says `peerState: "input-required"` with `peerTaskId`. Free text cannot honestly be turned
 *   into options, and a task of ours parked on a question nobody can answer with options would hang.
 * - The next turn of that contextId (an answer to our decision, or a new message in the conversation)
 *   is sent with the peer's taskId, so the peer task continues. An answer to a relayed decision is sent
 *   as the bare choice. If the peer no longer has that task, a new task starts in the same peer context.
 * Loop guards cross the hop: the message metadata carries delegationDepth + 1, visitedAgents and
 * callerAgent, which a contactor peer folds into its own chain (and rejects loops with).
 * Cancel is forwarded (tasks/cancel / CancelTask) when the turn is aborted. Memory of peer contexts and
 * parked tasks is per process: after a restart a follow-up starts a new peer conversation.
 */
import { decisionFollowUp, parseDecision, withoutDecisionContract } from '../../domain/decision-contract.js';
import { textOf, type Message } from '../../domain/task.js';
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../../ports.js';
import type { A2aAgentConfig } from '../../schema/config.js';
import { PeerDirectory, peerTraits, type PeerEndpoint } from './peer.js';
import { decisionBlockOf, PeerReply } from './reply.js';
import { confirmParked, forwardCancel, sendAndFollow, type Exchange } from './exchange.js';
import { PeerClient } from './client.js';
import { PeerError } from './fetch.js';
import { isAbort } from '../shared/fetch-util.js';
import { SHUTTING_DOWN, STOPPED } from '../shared/outcomes.js';

export interface A2aRemoteBackendOptions {
  name: string;
  config: A2aAgentConfig;
  /** Where `token_env` is looked up (after the agent's own `env`); default process.env. */
  env?: Record<string, string | undefined>;
  /** Resubscribe attempts after a stream drops, before falling back to polling (default 3). */
  resubscribeAttempts?: number;
  pollIntervalMs?: number;
}

interface PeerConversation {
  peerContextId?: string;
  /** The peer task parked on a question, continued by the next turn of this context. */
  parked?: { taskId: string; decision: boolean };
}

const MAX_CONVERSATIONS = 500;

export class A2aRemoteBackend implements AgentBackend {
  private readonly directory: PeerDirectory;
  private readonly conversations = new Map<string, PeerConversation>();
  private readonly running = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly options: A2aRemoteBackendOptions) {
    this.directory = new PeerDirectory({
      url: options.config.url,
      protocol: options.config.protocol,
      headers: () => this.authHeaders(),
    });
    // Read the card early so our own card can reflect the peer's; a peer not up yet is read on first use.
    void this.directory.resolve(AbortSignal.timeout(10_000)).catch(() => undefined);
  }

  get traits(): AgentTraits {
    return peerTraits(this.options.config.url, this.directory.known);
  }

  run(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (this.closed) return Promise.resolve(SHUTTING_DOWN);
    const work = this.runTurn(turn, report).then((outcome) => this.withoutToken(outcome));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const abort of this.running) abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /** A peer may echo what it was sent (our bearer token included) in its errors: never pass that on. */
  private withoutToken(outcome: TurnOutcome): TurnOutcome {
    const token = this.token();
    if (!token || !('reason' in outcome) || !outcome.reason.includes(token)) return outcome;
    return { ...outcome, reason: outcome.reason.split(token).join('[REDACTED]') };
  }

  private async runTurn(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (turn.signal.aborted) return STOPPED;
    const missing = this.missingToken();
    if (missing) return { kind: 'undelivered', retryable: false, reason: missing };

    const abort = new AbortController();
    const stop = (): void => abort.abort();
    turn.signal.addEventListener('abort', stop, { once: true });
    this.running.add(abort);
    let reply = new PeerReply(report);
    let client: PeerClient | undefined;
    try {
      const peer = await this.directory.resolve(abort.signal);
      client = await PeerClient.open(peer, () => this.authHeaders());
      report.receipt({
        executionForm: 'a2a',
        peerEndpoint: peer.endpoint,
        peerProtocol: peer.protocol,
        peerStreaming: peer.streaming,
      });

      const convo = this.conversation(turn.contextId);
      const message = this.outgoing(turn, convo, peer);
      const exchange = (into: PeerReply): Exchange => ({
        client: client!,
        peer,
        reply: into,
        report,
        signal: abort.signal,
        resubscribeAttempts: this.options.resubscribeAttempts ?? 3,
        pollIntervalMs: this.options.pollIntervalMs ?? 500,
      });
      try {
        await sendAndFollow(exchange(reply), message);
      } catch (err) {
        // The parked task is gone at the peer (finished, or the peer restarted): continue the
        // conversation in a new task rather than failing the turn.
        if (!(message.taskId && err instanceof PeerError && err.code !== undefined && reply.taskId === undefined))
          throw err;
        report.receipt({ peerTaskLost: message.taskId });
        const { taskId: _lost, ...fresh } = message;
        reply = new PeerReply(report);
        await sendAndFollow(exchange(reply), { ...fresh, messageId: crypto.randomUUID() });
      }
      await confirmParked(exchange(reply));
      return this.settle(reply, convo, report);
    } catch (err) {
      if (abort.signal.aborted || isAbort(err)) {
        if (client) await forwardCancel({ client, reply, report });
        return STOPPED;
      }
      if (!(err instanceof PeerError)) throw err;
      // A peer that never took the task did not get the work: undelivered; otherwise it failed midway.
      return reply.taskId === undefined
        ? { kind: 'undelivered', retryable: err.retryable, reason: err.message }
        : { kind: 'failed', retryable: err.retryable, reason: err.message };
    } finally {
      turn.signal.removeEventListener('abort', stop);
      this.running.delete(abort);
    }
  }

  private settle(reply: PeerReply, convo: PeerConversation, report: TurnReporter): TurnOutcome {
    if (reply.contextId) convo.peerContextId = reply.contextId;
    delete convo.parked;
    if (reply.direct) {
      const text = textOf(reply.direct.parts);
      if (text) report.text(text);
      return { kind: 'completed' };
    }
    const said = reply.statusText;
    switch (reply.state) {
      case 'completed':
        if (!reply.anyText && said) report.text(said);
        return { kind: 'completed' };
      case 'input-required': {
        // The question must be the last thing in the reply, where the decision parser looks for it.
        const decision = decisionBlockOf(reply.metadata);
        const already = parseDecision(reply.text) !== undefined || (said !== '' && reply.text.trimEnd().endsWith(said));
        const question =
          decision?.text ?? (said || `The remote agent is waiting for input (remote task ${reply.taskId}).`);
        if (!already) report.text(`${reply.anyText ? '\n\n' : ''}${question}`);
        const asks = decision !== undefined || parseDecision(reply.text) !== undefined;
        convo.parked = { taskId: reply.taskId!, decision: asks };
        // The peer's own bridge asked with its own contract: no contract is appended here (it would be twice).
        return { kind: 'completed', ...(asks ? { asks } : {}) };
      }
      case 'auth-required':
        convo.parked = { taskId: reply.taskId!, decision: false };
        return {
          kind: 'auth-required',
          reason: `the remote agent needs authentication: ${said || 'no details given'}`,
        };
      case 'failed':
        return {
          kind: 'failed',
          retryable: reply.metadata.retryable === true,
          reason: `the remote agent failed: ${said || 'no reason given'}`,
        };
      case 'rejected':
        return {
          kind: 'failed',
          retryable: false,
          reason: `the remote agent rejected the task: ${said || 'no reason given'}`,
        };
      case 'canceled':
        return {
          kind: 'failed',
          retryable: false,
          reason: `the remote task was canceled at the peer${said ? `: ${said}` : ''}`,
        };
      default:
        return { kind: 'failed', retryable: true, reason: `the remote task stopped in state ${reply.state}` };
    }
  }

  private outgoing(turn: Turn, convo: PeerConversation, peer: PeerEndpoint): Message {
    // A follow-up whose conversation with the peer is gone (evicted): tell the peer everything again.
    const told = turn.followUp && !convo.peerContextId && turn.cold ? turn.cold : turn;
    let text = told.text;
    // A contactor peer appends its own contract; sending ours too would only repeat it.
    if (peer.contactor) text = withoutDecisionContract(text);
    const parked = turn.followUp ? convo.parked : undefined;
    if (parked?.decision) text = chosenOption(text) ?? text;
    return {
      kind: 'message',
      messageId: turn.messageId,
      role: 'user',
      parts: [{ kind: 'text', text }, ...told.attachments],
      ...(convo.peerContextId ? { contextId: convo.peerContextId } : {}),
      ...(parked ? { taskId: parked.taskId } : {}),
      metadata: {
        delegationDepth: turn.delegationDepth + 1,
        visitedAgents: turn.visitedAgents,
        callerAgent: this.options.name,
      },
    };
  }

  /** The conversation of one of our contexts, most recently used last (bounded). */
  private conversation(contextId: string): PeerConversation {
    const convo = this.conversations.get(contextId) ?? {};
    this.conversations.delete(contextId);
    this.conversations.set(contextId, convo);
    if (this.conversations.size > MAX_CONVERSATIONS)
      this.conversations.delete(this.conversations.keys().next().value as string);
    return convo;
  }

  private token(): string | undefined {
    const name = this.options.config.token_env;
    return name === undefined
      ? undefined
      : (this.options.config.env[name] ?? (this.options.env ?? process.env)[name]) || undefined;
  }

  private missingToken(): string | undefined {
    const name = this.options.config.token_env;
    if (name === undefined || this.token() !== undefined) return undefined;
    return `the token variable ${name} (token_env of agent "${this.options.name}") is not set; set ${name} in the environment the bridge starts from (\`export ${name}=…\`, then \`contactor down && contactor up\`)`;
  }

  private authHeaders(): Record<string, string> {
    const token = this.token();
    return token ? { authorization: `Bearer ${token}` } : {};
  }
}

/**
 * The bare choice out of the runtime's answer turn (`decisionFollowUp`), so the peer can match it to
 * its options. The template is split on sentinels, so its wording lives only in the domain.
 */
function chosenOption(text: string): string | undefined {
  const [head, rest] = decisionFollowUp({ question: '\u0001', choice: '\u0000' }).split('\u0001') as [string, string];
  const [middle, tail] = rest.split('\u0000') as [string, string];
  // The answer is the text itself (the agent still holds the conversation) or closes it (the whole
  // request again, for an agent that does not remember): either way it is the last such block.
  const from = text.lastIndexOf(head);
  if (from < 0) return undefined;
  const at = text.lastIndexOf(middle);
  if (at < from) return undefined;
  const end = at < 0 ? -1 : text.indexOf(tail, at + middle.length);
  return end < 0 ? undefined : text.slice(at + middle.length, end).trim() || undefined;
}
