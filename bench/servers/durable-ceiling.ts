/**
 * The durable ceiling (docs/benchmark.md#the-durable-ceiling): the leanest honest durable server for the
 * benchmark's blocking send, written beside the product to measure how fast its request path could be.
 * node:http and nothing else between the socket and the method; the product's request gate
 * (transport/request-gate.ts), a constant-time token check, the body limit, a per-caller rate bucket and
 * the depth check, in the product's order and with its answers and audit lines; the product's database and
 * pragmas with one transaction per event-loop turn (ceiling/turn-store.ts); the task answered as stored
 * (ceiling/echo-send.ts). It serves only POST /agents/echo with a blocking v0.3 `message/send` of text.
 *
 * Argv: <dataDir>. Prints one JSON line `{ready, port, token}` once listening. The limits are the product's
 * defaults (schema/config.ts); BENCH_RATE_LIMIT_PER_MINUTE overrides the rate (as in contactor-echo.ts).
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BridgeConfigSchema } from '../../main/schema/config.js';
import { peekRequestId } from '../../main/transport/peek-id.js';
import { allowedHostsFor, gateRequest, type GatePolicy } from '../../main/transport/request-gate.js';
import { AuditLines, type Refusal } from './ceiling/audit-lines.js';
import { EchoSend, errorReply, AGENT } from './ceiling/echo-send.js';
import { TurnStore } from './ceiling/turn-store.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: durable-ceiling <dataDir>');
const defaults = BridgeConfigSchema.parse({});
const maxBodyBytes = defaults.max_body_bytes;
const perMinute = Number(process.env.BENCH_RATE_LIMIT_PER_MINUTE ?? 1_000_000_000);
/** What is read and thrown away of a refused body before the connection is cut (transport/rpc-post.ts). */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
const ENDPOINT = /^\/agents\/echo\/?$/;

const token = randomBytes(32).toString('base64url');
const tokenDigest = sha256(token);
const audit = new AuditLines(dataDir, token);
const store = new TurnStore(path.join(dataDir, 'contactor.db'));
const send = new EchoSend(store, audit);
const bucket = { tokens: perMinute, at: Date.now() };
let policy: GatePolicy | undefined;

const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
  const url = req.url ?? '/';
  const urlPath = url.split('?', 1)[0]!;
  const remote = req.socket.remoteAddress ?? 'unknown';
  const refuse = (
    status: number,
    code: number,
    message: string,
    reason: string,
    extra: Partial<Refusal> = {},
    data?: Record<string, unknown>,
    answer: { id: string | number | null; headers?: Record<string, string> } = { id: null },
  ) => {
    audit.refused({
      reason,
      status,
      method: req.method ?? '',
      path: urlPath,
      remote,
      host: req.headers.host || undefined,
      origin: req.headers.origin || undefined,
      ...extra,
    });
    const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer', ...answer.headers } : {};
    if (extra.caller !== undefined && status === 429) headers['Retry-After'] = String(retrySeconds);
    sendJson(res, status, errorReply(answer.id, code, message, data), headers);
  };
  policy ??= {
    allowedHosts: allowedHostsFor('127.0.0.1', (server.address() as AddressInfo).port),
    allowedOrigins: new Set(defaults.allowed_origins),
    maxUrlLength: 2048,
  };
  const gate = gateRequest(
    {
      method: req.method ?? '',
      url,
      host: req.headers.host || undefined,
      origin: req.headers.origin || undefined,
      contentType: req.headers['content-type'] || undefined,
    },
    policy,
  );
  if (gate) return refuse(gate.status, gate.code, gate.message, gate.reason);
  if (req.method !== 'POST' || !ENDPOINT.test(urlPath)) {
    const help = `nothing at ${req.method} ${urlPath}; POST JSON-RPC to / or /agents/<name>, or GET /health`;
    return sendJson(res, 404, errorReply(null, -32601, help));
  }
  if (!authorized(req.headers.authorization)) {
    // The product answers a 401 with the caller's own id, read from a bounded body (transport/peek-id.ts).
    return void peekRequestId(req, maxBodyBytes).then((peeked) =>
      refuse(
        401,
        -32066,
        'missing or wrong bearer token; the CLI finds it automatically — see `contactor token` to give it to another client',
        'unauthorized',
        {},
        undefined,
        { id: peeked.id, headers: peeked.read ? {} : { Connection: 'close' } },
      ),
    );
  }
  const version = String(req.headers['a2a-version'] ?? '').trim();
  if (version !== '' && !/^0\.3(\.\d+)?$/.test(version)) {
    return sendJson(res, 200, errorReply(null, -32009, 'the durable ceiling speaks A2A 0.3 only'));
  }
  readBody(req, (body) => {
    if (body === undefined) {
      return void discard(req).then(() =>
        refuse(
          413,
          -32600,
          `request body over the ${maxBodyBytes}-byte limit (max_body_bytes in config.yaml); send large content as a file part, or raise the limit`,
          'body-too-large',
        ),
      );
    }
    let parsed: { json: true; value: unknown } | { json: false };
    try {
      parsed = { json: true, value: JSON.parse(body) as unknown };
    } catch {
      parsed = { json: false };
    }
    const cost = parsed.json && Array.isArray(parsed.value) ? Math.max(1, parsed.value.length) : 1;
    if (!take(cost)) {
      return refuse(
        429,
        -32065,
        `too many requests from install; retry in ${retrySeconds} s (rate_limit_per_minute)`,
        'rate-limited',
        { caller: 'install' },
        { retryAfterMs },
      );
    }
    if (!parsed.json) return sendJson(res, 200, errorReply(null, -32700, 'request body is not valid JSON'));
    if (Array.isArray(parsed.value)) {
      return sendJson(res, 200, errorReply(null, -32600, 'the durable ceiling does not serve batches'));
    }
    send.handle(parsed.value, (json) => answerAfterAudit(() => sendJson(res, 200, json)));
  });
});
/**
 * The answers of one turn wait behind one audit write: the lines their commit produced go out in a
 * single `writeSync` at the turn's microtask, as the product's audit log does (audit/audit-log.ts).
 */
let heldAnswers: (() => void)[] = [];
function answerAfterAudit(answer: () => void): void {
  heldAnswers.push(answer);
  if (heldAnswers.length > 1) return;
  queueMicrotask(() => {
    const answers = heldAnswers;
    heldAnswers = [];
    audit.write();
    for (const send of answers) send();
  });
}

server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as AddressInfo).port;
  process.stdout.write(`${JSON.stringify({ ready: true, port, token, agent: AGENT })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  store.close();
  audit.close();
  process.exit(0);
});

/** The install token only, compared in constant time on digests (transport/caller-tokens.ts). */
function authorized(header: string | undefined): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(sha256(match[1]!), tokenDigest);
}

/** One-shot `crypto.hash`, as the product's token check: the leanest way to the same digest. */
function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

let retryAfterMs = 0;
let retrySeconds = 0;
/** The product's token bucket (transport/rate-limit.ts) for the one caller the install token proves. */
function take(cost: number): boolean {
  const now = Date.now();
  const perMs = perMinute / 60_000;
  bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * perMs);
  bucket.at = now;
  if (bucket.tokens >= cost) {
    bucket.tokens -= cost;
    return true;
  }
  retryAfterMs = Math.max(1, Math.ceil((cost - bucket.tokens) / perMs));
  retrySeconds = Math.ceil(retryAfterMs / 1000);
  return false;
}

/** The body as text, or undefined past the limit (announced or read). */
function readBody(req: IncomingMessage, done: (body: string | undefined) => void): void {
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return done(undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBodyBytes) over = true;
    else chunks.push(chunk);
  });
  req.on('end', () => done(over ? undefined : Buffer.concat(chunks, size).toString('utf8')));
}

function discard(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_LIMIT_BYTES) req.socket.destroy();
    });
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
