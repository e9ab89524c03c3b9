/**
 * The official A2A client (@a2a-js/sdk 1.3) pointed at one local agent, as any standard client would
 * be: the agent's URL with a trailing slash (the SDK resolves the card path relative to it) and the
 * bridge's bearer token through the SDK's own fetch hook. Every request it makes is recorded, so tests
 * can show which protocol version and methods went over the wire.
 */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
  type Client,
} from '@a2a-js/sdk/client';
import type { TestBridge } from '../helpers/bridge.js';

export type ClientMode = 'v1' | 'v0.3';

export interface RecordedCall {
  path: string;
  version: string | null;
  method: string | undefined;
}

export interface SdkClient {
  client: Client;
  calls: RecordedCall[];
}

/**
 * `v1`: the SDK's default (A2A 1.0). `v0.3`: `legacyCompat` on, and the client takes the interface the
 * card marks `protocolVersion: "0.3"` — what a client that speaks only 0.3 picks from our dual-stack
 * card. (Left to choose, a legacyCompat client prefers the 1.0 interface.)
 */
export async function sdkClient(tb: TestBridge, agent: string, mode: ClientMode): Promise<SdkClient> {
  const calls: RecordedCall[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    calls.push({ path: url.pathname, version: headers.get('a2a-version'), method: body?.method });
    return fetch(input, init);
  };
  const fetchImpl = createAuthenticatingFetchWithRetry(recording, {
    headers: async () => ({ Authorization: `Bearer ${tb.token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
  const legacyCompat = { enabled: mode === 'v0.3' };
  const cardResolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver,
    }),
  );
  const agentUrl = `${tb.url}/agents/${agent}/`;
  if (mode === 'v1') return { client: await factory.createFromUrl(agentUrl), calls };
  const card = await cardResolver.resolve(agentUrl);
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  return { client: await factory.createFromAgentCard({ ...card, supportedInterfaces: legacy }), calls };
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: '', filename: '', metadata: undefined };
}

export function sdkMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A SendMessageRequest as the SDK's types want it. */
export function sdkSend(text: string, ids: { taskId?: string; contextId?: string } = {}) {
  return { tenant: '', message: sdkMessage(text, ids), configuration: undefined, metadata: undefined };
}

/** All text of a list of parts (SDK shape). */
export function partsText(parts: readonly Part[]): string {
  return parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}
