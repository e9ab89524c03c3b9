/**
 * What the bridge says about itself over HTTP: health, the bridge's and each agent's card, the agent list
 * of `agents/list`, and the event feed — read from the dispatcher as it is at each request.
 */
import type { Dispatcher } from '../runtime/dispatcher.js';
import { buildAgentCard, buildBridgeCard, type AgentProfile, type BearerSecurity } from './cards.js';
import type { BridgeInfo } from './http-options.js';

export interface BridgeInfoOptions {
  dispatcher: Dispatcher;
  version: string;
  /** Whether requests need the bearer token (the cards declare it). */
  bearer: boolean;
  /** The bound URL, once listening. */
  url: () => string;
  /** Seconds since the bridge started. */
  uptimeS: () => number;
}

export interface BridgeDirectory extends BridgeInfo {
  /** `agents/list`: every agent with its queue and URLs. */
  agentList(): unknown[];
}

export function bridgeInfo(opts: BridgeInfoOptions): BridgeDirectory {
  const { dispatcher } = opts;
  const security: BearerSecurity | undefined = opts.bearer
    ? { bearer: { description: 'per-install token; the contactor CLI finds it in the discovery file' } }
    : undefined;
  const cardOptions = (url: string) => ({
    url,
    version: opts.version,
    ...(security ? { securitySchemes: security } : {}),
  });
  const profiles = (): AgentProfile[] =>
    dispatcher.registry.all().map((e) => ({
      name: e.name,
      ...(e.settings.description ? { description: e.settings.description } : {}),
      traits: e.backend.traits,
      skills: e.settings.skills,
      tags: e.settings.tags,
    }));
  return {
    health: () => ({
      status: 'ok',
      name: 'contactor',
      version: opts.version,
      uptimeS: opts.uptimeS(),
      agents: dispatcher.registry.names().length,
      pid: process.pid,
    }),
    bridgeCard: () => {
      const chosen = dispatcher.registry.defaultAgent();
      return buildBridgeCard({
        agents: profiles(),
        ...(chosen ? { defaultAgent: chosen } : {}),
        ...cardOptions(`${opts.url()}/`),
      });
    },
    agentCard: (name) => {
      const profile = profiles().find((p) => p.name === name);
      return profile && buildAgentCard({ ...profile, ...cardOptions(`${opts.url()}/agents/${name}`) });
    },
    hasAgent: (name) => dispatcher.registry.has(name),
    agentNames: () => dispatcher.registry.names(),
    listenFeed: (listener) => dispatcher.feed.listen(listener),
    feedSince: (cursor) => dispatcher.feed.since(cursor),
    feedCursor: () => dispatcher.feed.cursor(),
    agentList: () => {
      const pending = dispatcher.pending();
      const url = opts.url();
      return dispatcher.registry.all().map((e) => ({
        name: e.name,
        description: e.settings.description ?? '',
        backend: e.backend.traits.backend,
        traits: e.backend.traits,
        queue: {
          waiting: e.shard.waiting,
          running: e.shard.running,
          needsAnswer: pending.filter((t) => t.metadata.agent === e.name).length,
        },
        url: `${url}/agents/${e.name}`,
        cardUrl: `${url}/agents/${e.name}/.well-known/agent-card.json`,
      }));
    },
  };
}
