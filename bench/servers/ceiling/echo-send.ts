/**
 * The one method the durable ceiling serves: a blocking v0.3 `message/send` of text parts to the echo
 * agent, validated by hand, stored and answered as the product stores and answers it (the task, its rows,
 * its three events and its audit lines are the product's, byte for byte but for ids and instants):
 *
 * 1. the task row is inserted `submitted` (idempotent on the messageId) and committed; only then
 * 2. the echo agent runs (in-process, like bench/servers/echo-backend.ts): working, the reply artifact,
 *    completed — the final snapshot and its three events, committed in the next turn's transaction;
 * 3. the audit lines are written and the stored snapshot's JSON text is the response's `result`.
 */
import { exceedsDepth, MAX_JSON_DEPTH } from '../../../main/domain/json-depth.js';
import { payloadHash } from '../../../main/runtime/payload-hash.js';
import { timeOrderedId } from '../../../main/runtime/task-ids.js';
import type { AuditLines } from './audit-lines.js';
import type { TurnStore } from './turn-store.js';

export const AGENT = 'echo';

type Id = string | number | null;

/** A JSON-RPC reply as text, once its writes are durable. */
export type Reply = (json: string) => void;

export function errorReply(id: Id, code: number, message: string, data?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
}

/** The task as the product's runtime/new-task.ts builds it (the fields a text send to echo has). */
interface CeilingTask {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: string; timestamp: string };
  history: unknown[];
  artifacts: unknown[];
  metadata: Record<string, unknown>;
}

interface TextMessage {
  kind: 'message';
  messageId: string;
  role: 'user';
  parts: { kind: 'text'; text: string }[];
  contextId?: string;
}

export class EchoSend {
  constructor(
    private readonly store: TurnStore,
    private readonly audit: AuditLines,
  ) {}

  /** `body` is the parsed request body; `reply` runs once with the response text. */
  handle(body: unknown, reply: Reply): void {
    if (exceedsDepth(body, MAX_JSON_DEPTH)) {
      return reply(
        errorReply(idOf(body), -32600, `the request nests deeper than ${MAX_JSON_DEPTH} levels; flatten it`),
      );
    }
    const req = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = req?.id;
    if (
      typeof req !== 'object' ||
      req === null ||
      Array.isArray(req) ||
      req.jsonrpc !== '2.0' ||
      typeof req.method !== 'string' ||
      (typeof id !== 'string' && typeof id !== 'number')
    ) {
      return reply(
        errorReply(
          idOf(body),
          -32600,
          'not a JSON-RPC 2.0 request: it needs "jsonrpc": "2.0", a string "method" and an id',
        ),
      );
    }
    if (req.method !== 'message/send') {
      return reply(errorReply(id, -32601, `the durable ceiling serves message/send only, not "${req.method}"`));
    }
    const message = textMessage(req.params);
    if (!message) {
      return reply(errorReply(id, -32602, 'the durable ceiling takes a blocking message/send of text parts only'));
    }
    this.start(id, message, reply);
  }

  private start(id: string | number, message: TextMessage, reply: Reply): void {
    const now = new Date().toISOString();
    const taskId = timeOrderedId();
    const contextId = message.contextId ?? timeOrderedId();
    const created: CeilingTask = {
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'submitted', timestamp: now },
      history: [{ ...message, taskId, contextId }],
      artifacts: [],
      metadata: {
        agent: AGENT,
        requiresReview: true,
        createdAt: now,
        delegationDepth: 0,
        visitedAgents: [AGENT],
        createdBy: 'person',
      },
    };
    const hash = payloadHash({ agent: AGENT, parts: message.parts, contextId: message.contextId, cwd: undefined });
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    this.store.insert(
      {
        id: taskId,
        contextId,
        agent: AGENT,
        createdAt: now,
        keyScope: AGENT,
        messageId: message.messageId,
        payloadHash: hash,
        taskJson: JSON.stringify(created),
      },
      (inserted) => {
        if (!inserted.created) {
          if (inserted.payloadHash === hash) return reply(`${head}${inserted.taskJson}}`);
          const known = (JSON.parse(inserted.taskJson) as { id: string }).id;
          return reply(
            errorReply(
              id,
              -32061,
              `messageId "${message.messageId}" was already used for a different request (task ${known}); use a new messageId for new work`,
              { taskId: known },
            ),
          );
        }
        const text = message.parts.map((p) => p.text).join('');
        this.audit.created({ id: taskId, contextId, messageId: message.messageId, text, depth: 0 });
        this.runEcho(created, text, (taskJson) => reply(`${head}${taskJson}}`));
      },
    );
  }

  /** The echo agent's turn, after the task's creation is durable: one final snapshot and three events. */
  private runEcho(task: CeilingTask, text: string, done: (taskJson: string) => void): void {
    const { id, contextId } = task;
    const working = new Date().toISOString();
    const artifact = { artifactId: `${id}-reply`, name: 'reply', parts: [{ kind: 'text', text: `echo: ${text}` }] };
    const turnStartedAt = new Date().toISOString();
    const firstOutputAt = new Date().toISOString();
    const turnEndedAt = new Date().toISOString();
    const completedAt = new Date().toISOString();
    task.status = { state: 'completed', timestamp: completedAt };
    task.artifacts = [artifact];
    task.metadata.receipt = { turnStartedAt, firstOutputAt, turnEndedAt };
    const ids = `"taskId":"${id}","contextId":${JSON.stringify(contextId)}`;
    const taskJson = JSON.stringify(task);
    this.store.finish(
      {
        id,
        contextId,
        agent: AGENT,
        state: 'completed',
        updatedAt: completedAt,
        lastSeq: 3,
        taskJson,
        events: [
          [
            1,
            `{"kind":"status-update","seq":1,${ids},"status":{"state":"working","timestamp":"${working}"},"final":false}`,
          ],
          [
            2,
            `{"kind":"artifact-update","seq":2,${ids},"artifact":${JSON.stringify(artifact)},"append":false,"lastChunk":true}`,
          ],
          [
            3,
            `{"kind":"status-update","seq":3,${ids},"status":{"state":"completed","timestamp":"${completedAt}"},"final":true}`,
          ],
        ],
      },
      () => {
        this.audit.completed({ id, contextId });
        done(taskJson);
      },
    );
  }
}

/** A v0.3 message of text parts, blocking (the default), or undefined for anything else. */
function textMessage(params: unknown): TextMessage | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { message?: unknown; configuration?: { blocking?: unknown }; metadata?: unknown };
  if (p.metadata !== undefined || (p.configuration !== undefined && p.configuration?.blocking !== true))
    return undefined;
  const m = p.message as Partial<TextMessage> & Record<string, unknown>;
  if (typeof m !== 'object' || m === null) return undefined;
  const allowed = new Set(['kind', 'messageId', 'role', 'parts', 'contextId']);
  if (Object.keys(m).some((k) => !allowed.has(k))) return undefined;
  if (m.kind !== 'message' || m.role !== 'user' || typeof m.messageId !== 'string' || m.messageId === '')
    return undefined;
  if (m.contextId !== undefined && (typeof m.contextId !== 'string' || m.contextId === '')) return undefined;
  if (!Array.isArray(m.parts) || m.parts.length === 0) return undefined;
  for (const part of m.parts as unknown[]) {
    const q = part as Record<string, unknown>;
    if (typeof q !== 'object' || q === null || q.kind !== 'text' || typeof q.text !== 'string') return undefined;
    if (Object.keys(q).length !== 2) return undefined;
  }
  return m as TextMessage;
}

function idOf(raw: unknown): Id {
  if (raw && typeof raw === 'object' && 'id' in raw) {
    const id = (raw as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
