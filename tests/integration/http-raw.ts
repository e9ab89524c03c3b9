/**
 * Raw HTTP for the integration tests: node:http (not fetch) so a test can set any Host or Origin and
 * send bytes that are not JSON, exactly as a hostile page or a broken client would.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): any;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function rawRequest(baseUrl: string, req: RawRequest = {}): Promise<RawResponse> {
  const url = new URL(req.path ?? '/', baseUrl);
  return new Promise((resolve, reject) => {
    const out = request(url, { method: req.method ?? 'POST', headers: req.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    out.on('error', reject);
    if (req.body !== undefined) out.end(req.body);
    else out.end();
  });
}

/** A POST of `body` as-is to a bridge, with its token and a JSON content type unless overridden. */
export function postRaw(
  baseUrl: string,
  token: string,
  body: string,
  extra: Omit<RawRequest, 'body'> = {},
): Promise<RawResponse> {
  return rawRequest(baseUrl, {
    ...extra,
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...extra.headers },
  });
}
