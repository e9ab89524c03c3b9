/**
 * JSON-RPC over HTTP to the bridge, with the bearer token. Every reply is validated against the schema the
 * caller names; transport failures become the CLI's exit codes (5 unreachable, 6 unauthorized).
 */
import type { z } from 'zod';
import { HealthSchema, type Health } from '../../schema/discovery.js';
import { RpcReplySchema, StreamResultSchema, type StreamResult } from '../../schema/cli.js';
import { CliError, EXIT, exitForRpcCode, type ExitCode } from '../exit-codes.js';
import type { BridgeAddress } from './locate.js';
import { exchange, ExchangeError, type Exchanged } from './http-exchange.js';
import { readSse } from './sse-reader.js';
import { describePortHolder } from '../../platform/port-holder.js';
import type { EventSourceMessage } from 'eventsource-parser';

export interface StreamEvent {
  /** The SSE `id:` — the task's event sequence number, the resume cursor. */
  seq?: number;
  result: StreamResult;
}

export interface StreamOptions {
  /** Resume after this event (Last-Event-ID, docs/contract.md#streaming). */
  lastEventId?: number;
  signal?: AbortSignal;
}

/** The stream broke after it had started: worth resuming, unlike a bridge that never answered. */
export class StreamDropped extends Error {}

let nextId = 1;

export class BridgeClient {
  constructor(readonly address: BridgeAddress) {}

  /** undefined when nothing answers as a contactor bridge at the address. */
  async health(timeoutMs = 2000): Promise<Health | undefined> {
    const found = await probeAddress(this.address.url, timeoutMs);
    return found.kind === 'bridge' ? found.health : undefined;
  }

  /** Who holds the address: a contactor bridge, some other program, or nothing. */
  presence(timeoutMs = 2000): Promise<Presence> {
    return probeAddress(this.address.url, timeoutMs);
  }

  /** Asks a served bridge to stop cleanly (`POST /shutdown`); false when it does not offer that. */
  async requestShutdown(timeoutMs = 5000): Promise<boolean> {
    try {
      const res = await fetch(`${this.address.url}/shutdown`, {
        method: 'POST',
        headers: this.headers({}),
        body: '{}',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel();
      return res.status === 202;
    } catch {
      return false;
    }
  }

  async call<S extends z.ZodType>(
    method: string,
    params: unknown,
    schema: S,
    signal?: AbortSignal,
  ): Promise<z.infer<S>> {
    const reply = await this.exchangeRpc({ method, params }, signal);
    const result = await this.resultOf(reply, method);
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new CliError(
        `the bridge sent an unexpected ${method} result (${parsed.error.issues[0]?.message ?? 'invalid'}); is the CLI older than the bridge?`,
        EXIT.failed,
      );
    }
    return parsed.data;
  }

  /** A streaming method's events, in order, until the bridge ends the stream. */
  async *stream(method: string, params: unknown, opts: StreamOptions = {}): AsyncGenerator<StreamEvent> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
    const res = await this.post({ method, params }, headers, opts.signal);
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      await this.resultOf({ status: res.status, text: await res.text() }, method);
      throw new CliError(`the bridge answered ${method} without a stream`, EXIT.failed);
    }
    if (!res.body) throw new StreamDropped('empty stream body');
    try {
      for await (const event of readSse(res.body)) {
        const reply = RpcReplySchema.safeParse(safeJson(event.data));
        if (!reply.success) throw new CliError(`the bridge sent a malformed stream event for ${method}`, EXIT.failed);
        if (reply.data.error) throw rpcFailure(reply.data.error, method);
        const result = StreamResultSchema.safeParse(reply.data.result);
        if (!result.success)
          throw new CliError(
            `the bridge sent an unexpected ${method} event (${result.error.issues[0]?.message ?? 'invalid'})`,
            EXIT.failed,
          );
        const seq = event.id !== undefined && /^\d+$/.test(event.id) ? Number(event.id) : undefined;
        yield { ...(seq !== undefined ? { seq } : {}), result: result.data };
      }
    } catch (err) {
      if (err instanceof CliError || opts.signal?.aborted) throw err;
      throw new StreamDropped(`the stream from ${this.address.url} broke: ${describeCause(err)}`);
    }
  }

  /**
   * The bridge-wide event feed (`GET /events`), as raw server-sent events, after the event whose cursor is
   * `since` (docs/contract.md#the-event-feed); the caller parses each event's data. `onOpen` runs once the
   * bridge has accepted the request, before any event.
   */
  async *feed(
    since: string | undefined,
    opts: { signal?: AbortSignal; onOpen?: () => void } = {},
  ): AsyncGenerator<EventSourceMessage> {
    const { signal } = opts;
    const query = since === undefined ? '' : `?since=${encodeURIComponent(since)}`;
    const res = await this.request(
      `/events${query}`,
      { headers: this.headers({ accept: 'text/event-stream' }) },
      signal,
    );
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
      await this.resultOf({ status: res.status, text: await res.text() }, 'GET /events');
      throw new CliError(`the bridge answered GET /events with HTTP ${res.status} and no event stream`, EXIT.failed);
    }
    opts.onOpen?.();
    try {
      yield* readSse(res.body);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new StreamDropped(`the event feed from ${this.address.url} broke: ${describeCause(err)}`);
    }
  }

  /** One raw JSON-RPC exchange (for `stdio`): the reply as the bridge sent it. */
  async raw(body: unknown, headers: Record<string, string> = { accept: 'application/json' }): Promise<Response> {
    return this.fetch(JSON.stringify(body), headers);
  }

  private post(
    call: { method: string; params: unknown },
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response> {
    return this.fetch(rpcBody(call), headers, signal);
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const auth: Record<string, string> = this.address.token ? { authorization: `Bearer ${this.address.token}` } : {};
    return { 'content-type': 'application/json', ...auth, ...extra };
  }

  /** A one-shot call over node:http (no fetch to load: see http-exchange.ts). */
  private async exchangeRpc(call: { method: string; params: unknown }, signal?: AbortSignal): Promise<Exchanged> {
    let reply: Exchanged;
    try {
      reply = await exchange(`${this.address.url}/`, {
        method: 'POST',
        headers: this.headers({ accept: 'application/json' }),
        body: rpcBody(call),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw this.notReached(err);
    }
    if (reply.status === 401) throw this.unauthorized();
    return reply;
  }

  private fetch(body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    return this.request('/', { method: 'POST', headers: this.headers(headers), body }, signal);
  }

  /** One HTTP exchange with the bridge: unreachable and 401 become the CLI's own errors (exit 5 and 6). */
  private async request(urlPath: string, init: RequestInit, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.address.url}${urlPath}`, { ...init, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw this.notReached(err);
    }
    if (res.status === 401) {
      await res.body?.cancel();
      throw this.unauthorized();
    }
    return res;
  }

  /** A program that does not speak HTTP on the port fails the request in its own way (not refused). */
  private notReached(err: unknown): CliError {
    return isNobodyThere(err) ? unreachable(this.address.url, err) : portInUse(this.address.url, describeCause(err));
  }

  private unauthorized(): CliError {
    const hint = this.address.token
      ? 'the token was refused; if you rotated it, restart the bridge (`contactor down && contactor up`), or check CONTACTOR_TOKEN; `contactor doctor`'
      : 'no token found (no discovery file, no CONTACTOR_TOKEN); `contactor doctor`';
    return new CliError(`unauthorized at ${this.address.url}: ${hint}`, EXIT.unauthorized, { code: -32066 });
  }

  private async resultOf(res: Exchanged, method: string): Promise<unknown> {
    const { text } = res;
    const reply = RpcReplySchema.safeParse(safeJson(text));
    if (!reply.success) {
      const found = await this.presence();
      if (found.kind === 'other') throw portInUse(this.address.url, found.detail);
      throw new CliError(
        `${this.address.url} answered ${method} with HTTP ${res.status} and no JSON-RPC reply; is it a contactor bridge?`,
        EXIT.failed,
      );
    }
    if (reply.data.error) throw rpcFailure(reply.data.error, method);
    return reply.data.result;
  }
}

export type Presence = { kind: 'bridge'; health: Health } | { kind: 'other'; detail: string } | { kind: 'nothing' };

/**
 * GET /health at `url`: a contactor bridge answers with its health document; anything else that answers
 * (another HTTP server, a program that is not HTTP at all) holds the port; a refused connection or no
 * answer in time means nothing usable is there (a hung bridge is not called "another program").
 */
export async function probeAddress(url: string, timeoutMs = 2000): Promise<Presence> {
  let res: Exchanged;
  try {
    res = await exchange(`${url}/health`, { method: 'GET', timeoutMs });
  } catch (err) {
    return isNobodyThere(err) ? { kind: 'nothing' } : { kind: 'other', detail: describeCause(err) };
  }
  const parsed = HealthSchema.safeParse(safeJson(res.text));
  return parsed.success
    ? { kind: 'bridge', health: parsed.data }
    : { kind: 'other', detail: `GET /health answered HTTP ${res.status}, not as contactor` };
}

const NOBODY_THERE = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'];

function isNobodyThere(err: unknown): boolean {
  if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') return true;
  // node:http: the code is on the error (HPE_* when the program answered, not in HTTP).
  if (err instanceof ExchangeError) return err.code === undefined || NOBODY_THERE.includes(err.code);
  // fetch: the code is on the cause; without one the cause is a protocol error (undici's HTTPParserError).
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code === undefined) return cause === undefined;
  return NOBODY_THERE.includes(cause.code);
}

/** Another program holds the bridge's port: say so, and how to give the bridge another one. */
export function portInUse(url: string, detail: string, exitCode: ExitCode = EXIT.unreachable): CliError {
  const { port, hostname } = new URL(url);
  return new CliError(
    `port ${port} on ${hostname} is in use by a program that is not contactor (${detail}, ${describePortHolder(Number(port) || 80)}); ` +
      'give the bridge another port: `contactor up --port <n>` (or `serve --port <n>`), or `port:` in config.yaml (`contactor config path` shows where it is)',
    exitCode,
  );
}

export function unreachable(url: string, cause?: unknown): CliError {
  const why = cause === undefined ? '' : ` (${describeCause(cause)})`;
  return new CliError(`no bridge running at ${url}${why}; start it with \`contactor up\``, EXIT.unreachable);
}

function rpcFailure(error: { code: number; message: string; data?: unknown }, method: string): CliError {
  const hint = error.code === -32060 ? '; see `contactor agents`' : '';
  return new CliError(`${method} failed: ${error.message}${hint} [${error.code}]`, exitForRpcCode(error.code), {
    code: error.code,
    data: error.data,
  });
}

function describeCause(err: unknown): string {
  if (err instanceof ExchangeError) return err.code ?? err.message;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function rpcBody(call: { method: string; params: unknown }): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: call.method,
    ...(call.params === undefined ? {} : { params: call.params }),
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
