/**
 * Reads what the tray needs from a running bridge, in one go per refresh (refreshes are debounced feed
 * events, never a poll).
 */
import type { Dispatcher } from './bridge-host.js';
import type { BridgeSnapshot } from './tray-state.js';

const RECENT = 8;

export function snapshotOf(dispatcher: Dispatcher, url: string, configError?: string): BridgeSnapshot {
  return {
    url,
    ...(configError ? { configError } : {}),
    agents: dispatcher.registry.all().map((a) => ({
      name: a.name,
      ...(a.settings.description ? { description: a.settings.description } : {}),
      queued: a.shard.waiting,
    })),
    pending: dispatcher.pending(),
    working: dispatcher.list({ states: ['working'], pageSize: 50, includeArtifacts: false }).tasks,
    recent: dispatcher.list({ pageSize: RECENT, includeArtifacts: false }).tasks,
  };
}
