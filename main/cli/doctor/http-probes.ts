/**
 * What `contactor probe` can learn about agents reached over HTTP without sending them work: an http_api
 * endpoint answers `GET <base_url>/models` (OpenAI-compatible servers list their models there), and an a2a
 * peer serves its card. Both use the key or token the bridge would send.
 */
import { PeerCardSchema } from '../../schema/a2a-remote.js';
import type { A2aAgentConfig, HttpApiAgentConfig } from '../../schema/config.js';

export interface ProbeOutcome {
  ok: boolean;
  detail: string;
  fix?: string;
  data?: unknown;
}

export const HTTP_PROBE_TIMEOUT_MS = 10_000;

type Reached = { res: Response } | { failure: ProbeOutcome };

async function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Reached> {
  try {
    return { res: await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' }) };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const cause =
      e.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return {
      failure: {
        ok: false,
        detail: `nothing answers at ${url} (${cause})`,
        fix: 'start the server, or correct the URL in config.yaml',
      },
    };
  }
}

/**
 * The agent's `env` first, then the environment, as the backends look it up. A missing secret is reported
 * before anything is sent: the bridge would fail the same way.
 */
function secretHeader(
  envName: string | undefined,
  env: NodeJS.ProcessEnv,
): { headers: Record<string, string> } | { missing: ProbeOutcome } {
  if (envName === undefined) return { headers: {} };
  const value = env[envName];
  if (!value)
    return {
      missing: {
        ok: false,
        detail: `${envName} is not set in this environment`,
        fix: `set ${envName} where the bridge runs (the desktop app or \`contactor serve\` reads it at start)`,
      },
    };
  return { headers: { Authorization: `Bearer ${value}` } };
}

export async function probeHttpApi(
  config: HttpApiAgentConfig,
  env: NodeJS.ProcessEnv,
  timeoutMs = HTTP_PROBE_TIMEOUT_MS,
): Promise<ProbeOutcome> {
  const auth = secretHeader(config.api_key_env, { ...env, ...config.env });
  if ('missing' in auth) return auth.missing;
  const url = `${config.base_url.replace(/\/+$/, '')}/models`;
  const reached = await get(url, { ...config.headers, ...auth.headers }, timeoutMs);
  if ('failure' in reached) return reached.failure;
  const { status } = reached.res;
  await reached.res.body?.cancel();
  if (status === 401 || status === 403)
    return {
      ok: false,
      detail: `GET ${url} was refused (HTTP ${status})`,
      fix: config.api_key_env ? `check the key in ${config.api_key_env}` : 'the server wants a key: set api_key_env',
    };
  if (status >= 200 && status < 300) return { ok: true, detail: `GET ${url}: HTTP ${status}`, data: { url, status } };
  if (status === 404 || status === 405)
    return {
      ok: true,
      detail: `reachable, but GET ${url} answered HTTP ${status} (some servers have no /models; chat may still work)`,
      data: { url, status },
    };
  return { ok: false, detail: `GET ${url}: HTTP ${status}`, fix: "see the server's log", data: { url, status } };
}

export async function probeA2aPeer(
  name: string,
  config: A2aAgentConfig,
  env: NodeJS.ProcessEnv,
  timeoutMs = HTTP_PROBE_TIMEOUT_MS,
): Promise<ProbeOutcome> {
  const auth = secretHeader(config.token_env, { ...env, ...config.env });
  if ('missing' in auth) return auth.missing;
  const url = `${config.url.replace(/\/+$/, '')}/.well-known/agent-card.json`;
  const headers = { ...auth.headers, ...(config.protocol === '0.3' ? {} : { 'A2A-Version': '1.0' }) };
  const reached = await get(url, headers, timeoutMs);
  if ('failure' in reached) return reached.failure;
  const { res } = reached;
  if (!res.ok) {
    await res.body?.cancel();
    return {
      ok: false,
      detail: `GET ${url}: HTTP ${res.status}`,
      fix: `check agents.${name}.url: the peer serves /.well-known/agent-card.json under it`,
    };
  }
  const body: unknown = await res.json().catch(() => undefined);
  const card = PeerCardSchema.safeParse(body);
  if (!card.success)
    return {
      ok: false,
      detail: `${url} is not an agent card`,
      fix: `check that agents.${name}.url points at an A2A agent`,
    };
  const streaming = card.data.capabilities.streaming === true;
  const version =
    card.data.supportedInterfaces?.[0]?.protocolVersion ?? card.data.protocolVersion ?? 'unknown protocol version';
  return {
    ok: true,
    detail: `card of "${card.data.name}" (A2A ${version}, ${streaming ? 'streams' : 'does not stream'})`,
    data: card.data,
  };
}
