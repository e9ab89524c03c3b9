/**
 * `http_api`: an OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, llama.cpp, vLLM, LM
 * Studio, ...). One POST per turn with `stream: true`; the SSE deltas become the reply as they arrive.
 * The server keeps no state, so the conversation of each contextId lives here (bounded, in memory: a
 * restart forgets it, and the next turn then starts a fresh conversation). The decision contract is
 * already in `turn.text`, so a model can ask "A or B?" — it has no tools, hence nothing to permit.
 *
 * Failures say whether a retry can help: network errors, 429 and 5xx are retryable (Retry-After goes
 * in the receipt as `retryAfterMs`); other 4xx are not. A stream that breaks keeps the text received.
 * The API key is read from the variable named by `api_key_env` at each turn and never written anywhere.
 */
import { redact as redactText } from '../../domain/redaction.js';
import type { HttpApiAgentConfig } from '../../schema/config.js';
import { errorMessageOf } from '../../schema/http-api.js';
import type { AgentBackend, AgentTraits, Turn, TurnOutcome, TurnReporter } from '../../ports.js';
import { DECISION_CONTRACT, withoutDecisionContract } from '../../domain/decision-contract.js';
import type { Part } from '../../domain/task.js';
import { Conversations, type ChatMessage } from './conversations.js';
import { isAbort, safeJson } from '../shared/fetch-util.js';
import { describeCause, readChatDocument, readChatStream, type ChatReadResult } from './stream.js';
import { SHUTTING_DOWN, STOPPED } from '../shared/outcomes.js';

export interface HttpApiBackendOptions {
  name: string;
  config: HttpApiAgentConfig;
  /** Whether the runtime appends the decision contract, the only way a chat endpoint can ask (default true). */
  decisionContract?: boolean;
  /** Where `api_key_env` is looked up (after the agent's own `env`); default process.env. */
  env?: Record<string, string | undefined>;
  maxContexts?: number;
  /** Messages kept per conversation, excluding the system prompt (default 40). */
  maxMessages?: number;
}

const HTTP_API_TRAITS: AgentTraits = {
  backend: 'http_api',
  streaming: true,
  inputRequired: true,
  interruptible: true,
  multiTurn: true,
  // What it may ask (decisions, with the contract on) is said by the card from `backend` and `inputRequired`.
  limits: 'no files: attachments are inlined as text or named only',
};

const ERROR_BODY_LIMIT = 64 * 1024;

export class HttpApiBackend implements AgentBackend {
  readonly traits: AgentTraits;
  private readonly conversations: Conversations;
  private readonly running = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: HttpApiBackendOptions) {
    this.traits = { ...HTTP_API_TRAITS, inputRequired: options.decisionContract ?? true };
    this.conversations = new Conversations({
      maxContexts: options.maxContexts ?? 200,
      maxMessages: options.maxMessages ?? 40,
    });
  }

  async run(turn: Turn, report: TurnReporter): Promise<TurnOutcome> {
    if (this.closed) return SHUTTING_DOWN;
    if (turn.signal.aborted) return STOPPED;
    const { config } = this.options;
    const key = this.apiKey();
    if (key instanceof Error) return { kind: 'undelivered', retryable: false, reason: key.message };

    const history = this.conversations.history(turn.contextId);
    // A follow-up whose history is gone (evicted to make room): tell the model everything again.
    const told = turn.followUp && history.length === 0 && turn.cold ? turn.cold : turn;
    const userText = withAttachments(told.text, told.attachments);
    const messages: ChatMessage[] = [
      ...(config.system_prompt ? [{ role: 'system', content: config.system_prompt } as const] : []),
      ...history,
      { role: 'user', content: userText },
    ];
    const endpoint = `${config.base_url.replace(/\/+$/, '')}/chat/completions`;
    report.receipt({
      executionForm: 'http',
      endpoint,
      model: config.model,
      historyMessages: history.length,
      ...(turn.followUp && history.length === 0 ? { conversationLost: true } : {}),
    });

    const abort = new AbortController();
    const stop = (): void => abort.abort();
    turn.signal.addEventListener('abort', stop, { once: true });
    this.running.add(abort);
    let text = '';
    // The key and every credential-shaped string a server echoed back (domain/redaction.ts).
    const redact = (s: string): string => redactText(s, key ? [key] : []);
    try {
      const startedAt = Date.now();
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            ...config.headers,
            'content-type': 'application/json',
            accept: 'text/event-stream, application/json',
            ...(key ? { authorization: `Bearer ${key}` } : {}),
          },
          body: JSON.stringify({
            model: config.model,
            messages,
            stream: true,
            ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
          }),
          signal: abort.signal,
        });
      } catch (err) {
        if (abort.signal.aborted || isAbort(err)) return STOPPED;
        return {
          kind: 'failed',
          retryable: true,
          reason: redact(`could not reach ${endpoint}: ${describeCause(err)}`),
        };
      }
      report.receipt({ httpStatus: res.status, ...requestIdOf(res) });
      if (!res.ok) return await this.refusal(res, endpoint, report, redact);

      const onText = (chunk: string): void => {
        text += chunk;
        report.text(chunk);
      };
      const contentType = res.headers.get('content-type') ?? '';
      let read: ChatReadResult;
      if (contentType.includes('text/event-stream') && res.body) {
        read = await readChatStream(res.body, onText);
      } else {
        // A connection cut mid-body rejects here (undici "terminated"): a failed turn, not a throw.
        const body = await res.text().catch((err: unknown) => {
          if (abort.signal.aborted || isAbort(err)) throw err;
          return new Error(`the reply from ${endpoint} broke off: ${describeCause(err)}`);
        });
        if (body instanceof Error) {
          report.receipt({ streamBroken: true });
          return { kind: 'failed', retryable: true, reason: redact(body.message) };
        }
        read = readChatDocument(body, onText);
      }
      report.receipt({
        durationMs: Date.now() - startedAt,
        replyChars: read.chars,
        ...(read.finishReason ? { finishReason: read.finishReason } : {}),
        ...(read.responseId ? { responseId: read.responseId } : {}),
      });
      if (read.broken !== undefined) {
        report.receipt({ streamBroken: true });
        const kept = text ? ` (the ${text.length} characters received are kept)` : '';
        return { kind: 'failed', retryable: true, reason: redact(`${read.broken}${kept}`) };
      }
      // The contract rides on every new turn; keeping one copy per past turn would only cost tokens.
      this.conversations.record(turn.contextId, withoutDecisionContract(userText), text);
      return { kind: 'completed' };
    } catch (err) {
      if (abort.signal.aborted || isAbort(err)) return STOPPED;
      throw err;
    } finally {
      turn.signal.removeEventListener('abort', stop);
      this.running.delete(abort);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const abort of this.running) abort.abort();
  }

  private apiKey(): string | Error | undefined {
    const name = this.options.config.api_key_env;
    if (name === undefined) return undefined;
    const value = this.options.config.env[name] ?? (this.options.env ?? process.env)[name];
    if (!value) {
      return new Error(
        `the API key variable ${name} (api_key_env of agent "${this.options.name}") is not set; set ${name} in the environment the bridge starts from (\`export ${name}=…\`, then \`contactor down && contactor up\`)`,
      );
    }
    return value;
  }

  /** Retry only what a retry can fix — rate limits and server faults, never a bad request. */
  private async refusal(
    res: Response,
    endpoint: string,
    report: TurnReporter,
    redact: (s: string) => string,
  ): Promise<TurnOutcome> {
    const body = (await res.text().catch(() => '')).slice(0, ERROR_BODY_LIMIT);
    const message = errorMessageOf(safeJson(body)) ?? (body.trim().slice(0, 300) || res.statusText);
    const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
    const retryAfterMs = retryable ? retryAfterOf(res.headers) : undefined;
    if (retryAfterMs !== undefined) report.receipt({ retryAfterMs });
    const when = retryAfterMs !== undefined ? `; retry after ${Math.ceil(retryAfterMs / 1000)}s` : '';
    const hint = res.status === 401 || res.status === 403 ? ' (check api_key_env and the key it names)' : '';
    return {
      kind: 'failed',
      retryable,
      reason: redact(`${endpoint} answered HTTP ${res.status}: ${message}${hint}${when}`),
    };
  }
}

/** `retry-after-ms` (OpenAI) or `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function requestIdOf(res: Response): Record<string, string> {
  const id = res.headers.get('x-request-id');
  return id ? { requestId: id } : {};
}

/**
 * A chat model reads text only: data parts and text files go inline, anything else is named. They go
 * before the decision contract, which must stay the last thing the model reads.
 */
function withAttachments(text: string, attachments: readonly Part[]): string {
  if (attachments.length === 0) return text;
  const contract = text.endsWith(DECISION_CONTRACT) ? DECISION_CONTRACT : '';
  const blocks = attachments.map((part) => {
    if (part.kind === 'data') return `Attached data:\n${JSON.stringify(part.data, null, 2)}`;
    if (part.kind === 'text') return part.text;
    const name = part.file.name ?? part.file.uri ?? 'file';
    const textual =
      part.file.bytes !== undefined && /^(text\/|application\/(json|xml|yaml))/.test(part.file.mimeType ?? '');
    if (textual) return `Attached file ${name}:\n${Buffer.from(part.file.bytes!, 'base64').toString('utf8')}`;
    return `(Attached file ${name} was not forwarded: this agent reads text only.)`;
  });
  return `${withoutDecisionContract(text)}\n\n${blocks.join('\n\n')}${contract}`;
}
