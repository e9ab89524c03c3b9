/**
 * The bridge log: JSON lines in `<data_dir>/logs/bridge.log`. Credential-shaped strings and the
 * bridge's own token are redacted from every entry before it is written, wherever they appear.
 */
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { redact } from '../domain/redaction.js';
import { RotatingFile } from '../platform/log-rotation.js';

/** bridge.log rotates past this size, as the audit log and the agents' logs do (platform/log-rotation.ts). */
export const BRIDGE_LOG_MAX_BYTES = 5 * 1024 * 1024;
/** Rotated bridge logs kept besides the current one. */
export const BRIDGE_LOG_KEEP = 2;

/** The patterns live in domain/redaction.ts, shared with the task texts the runtime writes. */
export { redact };

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

export function bridgeLogFile(dataDir: string): string {
  return path.join(dataDir, 'logs', 'bridge.log');
}

/**
 * `open` opens `bridgeLogFile` for appending: the caller's, so that the bridge's own files are opened the one
 * way that never follows a link (wiring/bridge-files.ts), also when the log is reopened after it rotated.
 * Opened here, not by pino, so that closing it is synchronous: a stopped bridge holds no handle.
 */
export function createLogger(
  dataDir: string,
  secrets: () => readonly string[],
  open: (file: string) => number,
  limits: { maxBytes: number; keep: number } = { maxBytes: BRIDGE_LOG_MAX_BYTES, keep: BRIDGE_LOG_KEEP },
): BridgeLogger {
  const file = new RotatingFile({ file: bridgeLogFile(dataDir), open, ...limits });
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
    file,
  );
  let closed = false;
  return Object.assign(logger, {
    close() {
      if (closed) return;
      closed = true;
      logger.level = 'silent'; // a late line is dropped rather than written to a closed (or reused) fd
      file.close();
    },
  });
}
