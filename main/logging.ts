/**
 * The bridge log: JSON lines in `<data_dir>/logs/bridge.log`. Credential-shaped strings and the
 * bridge's own token are redacted from every entry before it is written, wherever they appear.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';

const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g, // OpenAI / Anthropic-style API keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, // JWTs
  /(bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi, // Authorization values
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Replaces credentials in a string; `secrets` are exact values (the bridge token) to remove too. */
/** One pass that says whether any pattern could match: most strings have no credential at all. */
const ANY_CREDENTIAL = new RegExp(CREDENTIAL_PATTERNS.map((p) => `(?:${p.source})`).join('|'), 'i');

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  if (!ANY_CREDENTIAL.test(out)) return out;
  for (const pattern of CREDENTIAL_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}[REDACTED]` : '[REDACTED]',
    );
  }
  return out;
}

export function redactDeep(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (value instanceof Error)
    return { type: value.name, message: redact(value.message, secrets), stack: redact(value.stack ?? '', secrets) };
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets, depth + 1)]));
}

/** The bridge log; `close` ends it (on Windows an open file keeps its folder from being removed or moved). */
export type BridgeLogger = Logger & { close(): void };

export function createLogger(dataDir: string, secrets: () => readonly string[]): BridgeLogger {
  const dir = path.join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The file is opened here, not by pino, so that closing it is synchronous: a stopped bridge holds no handle.
  const fd = openSync(path.join(dir, 'bridge.log'), 'a');
  const logger = pino(
    {
      level: process.env.CONTACTOR_LOG_LEVEL ?? 'info',
      base: { pid: process.pid },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => redactDeep(a, secrets())) as Parameters<typeof method>);
        },
      },
    },
    // Synchronous: the log is low-volume, and a line written just before exit must not be lost.
    pino.destination({ fd, sync: true }),
  );
  let closed = false;
  return Object.assign(logger, {
    close() {
      if (closed) return;
      closed = true;
      logger.level = 'silent'; // a late line is dropped rather than written to a closed (or reused) fd
      closeSync(fd);
    },
  });
}
