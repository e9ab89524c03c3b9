/**
 * Checks made before any dispatch, against the real local threats: a web page in the user's browser
 * posting to the loopback port (CSRF: it always sends an Origin) or reaching it under its own hostname
 * (DNS rebinding: the Host is not ours), and oversized or non-JSON bodies; and a method the bridge has no
 * route for (it answers GET and POST only). The HTTP edge calls it once per request, before any route.
 */
export interface GatePolicy {
  /** `host:port` values that name this bridge (loopback names and the bound address). */
  allowedHosts: ReadonlySet<string>;
  /** Origins explicitly allowed to call (none by default). */
  allowedOrigins: ReadonlySet<string>;
  maxUrlLength: number;
}

export interface GateRequest {
  method: string;
  url: string;
  host: string | undefined;
  origin: string | undefined;
  contentType: string | undefined;
}

export interface GateRefusal {
  /** Short and stable, for the audit log. */
  reason: 'url-too-long' | 'host-not-allowed' | 'origin-not-allowed' | 'method-not-allowed' | 'not-json';
  status: number;
  code: number;
  message: string;
}

export function gateRequest(req: GateRequest, policy: GatePolicy): GateRefusal | undefined {
  if (req.url.length > policy.maxUrlLength)
    return { reason: 'url-too-long', status: 414, code: -32600, message: 'request URL too long' };
  if (!req.host || !policy.allowedHosts.has(req.host.toLowerCase())) {
    return {
      reason: 'host-not-allowed',
      status: 421,
      code: -32600,
      message: 'this bridge only answers requests addressed to its loopback host and port',
    };
  }
  if (req.origin !== undefined && !policy.allowedOrigins.has(req.origin)) {
    return {
      reason: 'origin-not-allowed',
      status: 403,
      code: -32600,
      message: 'requests from web pages are refused (Origin not allowed)',
    };
  }
  if (req.method !== 'GET' && req.method !== 'POST') {
    return {
      reason: 'method-not-allowed',
      status: 405,
      code: -32600,
      message: `${req.method} is not supported; POST JSON-RPC to / or /agents/<name>`,
    };
  }
  if (req.method === 'POST' && !isJson(req.contentType)) {
    return { reason: 'not-json', status: 415, code: -32005, message: 'POST needs Content-Type: application/json' };
  }
  return undefined;
}

export function allowedHostsFor(host: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host]);
  return new Set([...names].map((n) => `${n}:${port}`.toLowerCase()));
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json';
}
