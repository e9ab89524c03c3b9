/**
 * One plain HTTP request with the whole reply read, over node:http. The CLI's one-shot calls use it
 * instead of fetch: loading fetch's implementation (undici) was the largest single cost of a short
 * `contactor agents` run (`npm run bench -- --only=cli`). Streams still use fetch.
 */
import type * as Http from 'node:http';

// Not `import ... from 'node:http'`: an ES import of it evaluates every export, and one of them loads
// undici, the very cost this file avoids (seen in a CPU profile: lazyUndici < node:http getter).
const { request } = process.getBuiltinModule('node:http') as typeof Http;

export interface Exchanged {
  status: number;
  text: string;
}

export interface ExchangeOptions {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A failure before any reply: `code` as Node gives it (ECONNREFUSED, HPE_INVALID_CONSTANT, ...). */
export class ExchangeError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = code === 'TIMEOUT' ? 'TimeoutError' : 'ExchangeError';
  }
}

export function exchange(url: string, opts: ExchangeOptions): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body, 'utf8');
    const req = request(
      url,
      {
        method: opts.method,
        headers: { ...opts.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        agent: false,
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err: NodeJS.ErrnoException) => reject(new ExchangeError(err.message, err.code)));
      },
    );
    if (opts.timeoutMs !== undefined)
      req.setTimeout(opts.timeoutMs, () =>
        req.destroy(new ExchangeError(`no answer within ${opts.timeoutMs} ms`, 'TIMEOUT')),
      );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (opts.signal?.aborted) reject(opts.signal.reason);
      else reject(err instanceof ExchangeError ? err : new ExchangeError(err.message, err.code));
    });
    req.end(body);
  });
}
