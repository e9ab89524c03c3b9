/**
 * The limits a config reload applies without a restart, outside the agents: the delegation depth and page
 * size the dispatcher reads per call, the artifact cap behind the response limit, the turn slots, and the
 * history pruning (restarted when its settings change), and the MCP tools' wait bound. max_body_bytes needs a
 * restart: the one read at start stays.
 */
import type { BridgeLogger } from '../audit/logging.js';
import type { TurnSlots } from '../runtime/turn-slots.js';
import type { BridgeConfig } from '../schema/config.js';
import { startHistoryPruning, type HistoryPruning, type PrunableStore } from '../stores/history-pruning.js';
import { responseLimitFor } from '../transport/response-size.js';

/** The dispatcher options a reload rewrites in place (the dispatcher reads them per call). */
export interface LiveDispatcherOptions {
  maxDelegationDepth: number;
  maxPageBytes?: number;
}

/** A page stops short of the response limit, leaving room for the live view and the envelope. */
export function pageBytesFor(maxArtifactBytes: number, maxBodyBytes: number): number {
  return maxArtifactBytes + maxBodyBytes;
}

export interface LiveLimitsOptions {
  started: BridgeConfig;
  dispatcherOptions: LiveDispatcherOptions;
  slots: TurnSlots;
  store: PrunableStore;
  log: BridgeLogger;
}

export class LiveLimits {
  private readonly maxBodyBytes: number;
  /** Follows a reload of max_artifact_bytes, as agents' settings do: a reply the cap keeps can be served. */
  private artifactCap: number;
  private history: BridgeConfig['history'];
  private pruning: HistoryPruning | undefined;
  private mcpWait: number;

  constructor(private readonly opts: LiveLimitsOptions) {
    this.maxBodyBytes = opts.started.max_body_bytes;
    this.artifactCap = opts.started.max_artifact_bytes;
    this.history = opts.started.history;
    this.mcpWait = opts.started.mcp_wait_seconds;
  }

  /** How long `/mcp`'s send_task follows a task (mcp_wait_seconds), read per call. */
  get mcpWaitMs(): number {
    return this.mcpWait * 1000;
  }

  get maxResponseBytes(): number {
    return responseLimitFor(this.artifactCap, this.maxBodyBytes);
  }

  apply(next: BridgeConfig): void {
    this.opts.dispatcherOptions.maxDelegationDepth = next.max_delegation_depth;
    this.opts.dispatcherOptions.maxPageBytes = pageBytesFor(next.max_artifact_bytes, this.maxBodyBytes);
    this.artifactCap = next.max_artifact_bytes;
    this.mcpWait = next.mcp_wait_seconds;
    this.opts.slots.resize(next.max_concurrent_tasks);
    const historyChanged = JSON.stringify(next.history) !== JSON.stringify(this.history);
    this.history = next.history;
    if (this.pruning && historyChanged) {
      this.pruning.stop();
      this.pruning = this.prune();
    }
  }

  /** Once the bridge serves: pruning runs from then on. */
  startPruning(): void {
    this.pruning ??= this.prune();
  }

  /** A task was created (the feed's creation notice): pruning keeps up with a busy bridge. */
  noteCreated(): void {
    this.pruning?.noteCreated();
  }

  stop(): void {
    this.pruning?.stop();
  }

  private prune(): HistoryPruning {
    const { log } = this.opts;
    return startHistoryPruning({
      store: this.opts.store,
      maxAgeDays: this.history.max_age_days,
      maxTasks: this.history.max_tasks,
      onPruned: (deleted) => log.info({ deleted }, 'pruned finished tasks from the history'),
      onError: (err) => log.warn({ err }, 'could not prune the task history'),
    });
  }
}
