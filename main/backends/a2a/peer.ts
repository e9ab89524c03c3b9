/**
 * The remote peer as its card describes it: which JSON-RPC endpoint and protocol version to speak
 * (A2A v1 §8.3.1: `supportedInterfaces` is in preference order; a v0.3 card's `url` and
 * `preferredTransport` arrive as interfaces too, the SDK's card resolver translates them), whether it
 * streams, and what that means for our own card's traits.
 */
import type { AgentTraits } from '../../ports.js';
import type { PeerCard } from '../../schema/a2a-remote.js';
import { readPeerCard, type PeerProtocol, type SdkCard } from './client.js';
import { PeerError } from './fetch.js';

export type { PeerProtocol };

export interface PeerEndpoint {
  card: PeerCard;
  /** The card as the SDK resolved it, for its client. */
  sdkCard: SdkCard;
  cardUrl: string;
  endpoint: string;
  protocol: PeerProtocol;
  streaming: boolean;
  /** The peer is a contactor bridge: it adds its own decision contract and loop guards. */
  contactor: boolean;
  interruptible: boolean;
  /** The peer's own traits extension (a contactor bridge's card), as it declares them. */
  declared?: DeclaredTraits;
}

/** What a contactor peer's `urn:contactor:agent-traits:v1` params say; a missing or odd value is unknown. */
export interface DeclaredTraits {
  inputRequired?: boolean;
  interruptible?: boolean;
  multiTurn?: boolean;
  streaming?: boolean;
  backend?: string;
}

/** contactor's card extension (docs/contract.md#agent-cards). */
const CONTACTOR_TRAITS_URI = 'urn:contactor:agent-traits:v1';
const CARD_TTL_MS = 60_000;

export class PeerDirectory {
  private cached: { peer: PeerEndpoint; at: number } | undefined;

  constructor(
    private readonly opts: {
      url: string;
      protocol: 'auto' | PeerProtocol;
      headers: () => Record<string, string>;
    },
  ) {}

  /** The last card read, if any (for traits; never blocks). */
  get known(): PeerEndpoint | undefined {
    return this.cached?.peer;
  }

  /** A fresh enough card, re-read after a minute; a stale card is used when the re-read fails. */
  async resolve(signal: AbortSignal): Promise<PeerEndpoint> {
    if (this.cached && Date.now() - this.cached.at < CARD_TTL_MS) return this.cached.peer;
    try {
      const peer = await this.read(signal);
      this.cached = { peer, at: Date.now() };
      return peer;
    } catch (err) {
      if (this.cached && !signal.aborted) return this.cached.peer;
      throw err;
    }
  }

  private async read(signal: AbortSignal): Promise<PeerEndpoint> {
    const { card, sdkCard, cardUrl } = await readPeerCard(this.opts.url, {
      headers: this.opts.headers,
      signal,
      protocol: this.opts.protocol,
    });
    return describePeer(card, sdkCard, cardUrl, this.opts.protocol);
  }
}

function describePeer(card: PeerCard, sdkCard: SdkCard, cardUrl: string, wanted: 'auto' | PeerProtocol): PeerEndpoint {
  const choice = pickInterface(card, wanted);
  if (!choice) {
    const which = wanted === 'auto' ? 'a JSON-RPC interface' : `an A2A ${wanted} JSON-RPC interface`;
    throw new PeerError(`the agent card at ${cardUrl} offers no ${which}; check url and protocol in config`, {
      retryable: false,
    });
  }
  const traits = card.capabilities.extensions?.find((e) => e.uri === CONTACTOR_TRAITS_URI)?.params;
  const flag = (key: string): boolean | undefined => (typeof traits?.[key] === 'boolean' ? traits[key] : undefined);
  return {
    card,
    sdkCard,
    cardUrl,
    endpoint: new URL(choice.url, cardUrl).href,
    protocol: choice.protocol,
    streaming: card.capabilities.streaming === true,
    contactor: traits !== undefined,
    // Every A2A server must answer tasks/cancel (v0.3 §7.4, v1 CancelTask is core); a contactor peer
    // says whether the agent behind it really stops.
    interruptible: typeof traits?.interruptible === 'boolean' ? traits.interruptible : true,
    ...(traits
      ? {
          declared: {
            ...defined('inputRequired', flag('inputRequired')),
            ...defined('interruptible', flag('interruptible')),
            ...defined('multiTurn', flag('multiTurn')),
            ...defined('streaming', flag('streaming')),
            ...(typeof traits.backend === 'string' ? { backend: traits.backend } : {}),
          },
        }
      : {}),
  };
}

function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function pickInterface(
  card: PeerCard,
  wanted: 'auto' | PeerProtocol,
): { url: string; protocol: PeerProtocol } | undefined {
  const jsonRpc = (card.supportedInterfaces ?? []).filter((i) => i.protocolBinding.toUpperCase() === 'JSONRPC');
  const v1 = jsonRpc.find((i) => i.protocolVersion?.startsWith('1.'));
  const v03 = jsonRpc.find((i) => i.protocolVersion?.startsWith('0.'));
  if (wanted !== '0.3' && v1) return { url: v1.url, protocol: '1.0' };
  if (wanted !== '1.0' && v03) return { url: v03.url, protocol: '0.3' };
  return undefined;
}

/** The peer's own words, kept short: they go into our card's description. */
const PEER_WORDS_CHARS = 600;

/**
 * Our card reflects the peer's. A contactor peer declares its traits (`urn:contactor:agent-traits:v1`):
 * they are inherited, with its card's words. Any other peer's card only says whether it streams: the
 * rest is unknown, claimed at the safe end (no mid-run questions, no memory), and said in words.
 */
export function peerTraits(url: string, peer: PeerEndpoint | undefined): AgentTraits {
  const where = `a remote A2A agent at ${url}`;
  if (!peer) {
    return {
      backend: 'a2a',
      streaming: false,
      inputRequired: false,
      interruptible: true,
      multiTurn: false,
      limits: `${where}; its card has not been read yet (it is read on the first task), so nothing it can do is known or claimed`,
    };
  }
  const named = `${where} ("${peer.card.name}", A2A ${peer.protocol})`;
  const noStreaming = peer.streaming ? '' : '; no streaming: the reply arrives when the remote task ends';
  const declared = peer.declared;
  if (declared) {
    const words = (peer.card.description ?? '').trim().slice(0, PEER_WORDS_CHARS);
    return {
      backend: 'a2a',
      streaming: declared.streaming ?? peer.streaming,
      inputRequired: declared.inputRequired ?? false,
      interruptible: declared.interruptible ?? peer.interruptible,
      multiTurn: declared.multiTurn ?? false,
      limits:
        `${named}, behind another contactor bridge${declared.backend ? ` (its backend: ${declared.backend})` : ''}` +
        `${noStreaming}${words ? `; its own card says: "${words}"` : ''}`,
    };
  }
  return {
    backend: 'a2a',
    streaming: peer.streaming,
    inputRequired: false,
    interruptible: true,
    multiTurn: false,
    limits:
      `${named}${noStreaming}; its card does not say whether it remembers a conversation (follow-ups go to the ` +
      'same remote context, but it may need the full context again), whether it asks questions (a question it ' +
      'asks ends the turn as the reply), or whether a cancel stops its work (the cancel is forwarded)',
  };
}
