/**
 * The task side of the bridge: the SQLite store behind the audit decorator, the agent registry and its
 * turn slots, the dispatcher, and the limits a reload changes live.
 */
import path from 'node:path';
import { AuditLog } from '../audit/audit-log.js';
import { AuditedTaskStore } from '../audit/audited-store.js';
import type { BridgeLogger } from '../audit/logging.js';
import { Activity } from '../runtime/activity.js';
import { Dispatcher } from '../runtime/dispatcher.js';
import type { Timers } from '../runtime/timers.js';
import { EventFeed } from '../runtime/event-feed.js';
import { AgentRegistry } from '../runtime/registry.js';
import { TurnSlots } from '../runtime/turn-slots.js';
import type { BridgeConfig } from '../schema/config.js';
import { SqliteTaskStore } from '../stores/sqlite.js';
import { databaseFile } from './bridge-files.js';
import { LiveLimits, pageBytesFor } from './live-limits.js';

export interface TaskRuntimeOptions {
  config: BridgeConfig;
  dataDir: string;
  /** Kept out of the audit log and of what tasks show. */
  secrets: () => readonly string[];
  log: BridgeLogger;
  /** The clock question expiry and turn timeouts run on (default: the real one). */
  timers?: Timers | undefined;
}

export interface TaskRuntime {
  audit: AuditLog;
  /** The bare store, for pruning and for the tasks a killed run left (wiring's start). */
  sqlite: SqliteTaskStore;
  /** The store everything else uses: every write is audited. */
  store: AuditedTaskStore;
  registry: AgentRegistry;
  dispatcher: Dispatcher;
  /** The activity view (HTTP `activity/*` and the desktop app's activity window read the same one). */
  activity: Activity;
  limits: LiveLimits;
}

export function createTaskRuntime({ config, dataDir, secrets, log, timers }: TaskRuntimeOptions): TaskRuntime {
  const audit = new AuditLog({
    dir: path.join(dataDir, 'audit'),
    secrets,
    onError: (err) => log.warn({ err }, 'could not write the audit log'),
  });
  const sqlite = new SqliteTaskStore({ file: databaseFile(dataDir) });
  const store = new AuditedTaskStore(sqlite, audit);
  const slots = new TurnSlots(config.max_concurrent_tasks);
  const registry = new AgentRegistry(slots);
  registry.setDefault(config.default_agent);
  // The dispatcher reads these per call: LiveLimits rewrites them in this object on a reload.
  const dispatcherOptions = {
    store,
    registry,
    feed: new EventFeed(),
    sinks: [audit],
    maxDelegationDepth: config.max_delegation_depth,
    secrets,
    maxPageBytes: pageBytesFor(config.max_artifact_bytes, config.max_body_bytes),
    ...(timers ? { timers } : {}),
  };
  const dispatcher = new Dispatcher(dispatcherOptions);
  const limits = new LiveLimits({ started: config, dispatcherOptions, slots, store: sqlite, log });
  // A creation notice is the feed's event of seq 0 (runtime/event-feed.ts); the listener lives as long as the feed.
  dispatcherOptions.feed.listen((event) => {
    if (event.seq === 0) limits.noteCreated();
  });
  return { audit, sqlite, store, registry, dispatcher, activity: new Activity(dispatcher), limits };
}
