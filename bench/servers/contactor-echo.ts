/**
 * contactor with its durable SQLite store and the in-process echo backend, built from parts the way
 * main/wiring/wiring.ts builds it (audit log, audited SQLite store, registry with turn slots, dispatcher,
 * BridgeServer with token and rate limit), so only the agent differs from the product.
 * Argv: <dataDir>. Prints one JSON line `{ready, port, token}` once listening.
 *
 * `BENCH_VARIANT` takes parts out for the benchmark's breakdown section (bench/sections/breakdown.ts),
 * so the cost of each is measured, not guessed: `no-audit` (no audit log), `no-sql` (the SQLite store
 * with the group commit's SQL skipped: BEGIN, the row and event writes and COMMIT do nothing, so nothing
 * is durable; what a commit thread could at best take off the event loop), `memory` (the in-memory
 * store instead of SQLite), `memory-no-audit` (both). Unset = the product's parts.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AuditLog } from '../../main/audit/audit-log.js';
import { AuditedTaskStore } from '../../main/audit/audited-store.js';
import { createLogger } from '../../main/audit/logging.js';
import { openOwnFileForAppend } from '../../main/platform/protected-files.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { TurnSlots } from '../../main/runtime/turn-slots.js';
import { BridgeConfigSchema } from '../../main/schema/config.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { createBridgeServer } from '../../main/wiring/http-server.js';
import { InProcessEchoBackend } from './echo-backend.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: contactor-echo <dataDir>');
const variant = process.env.BENCH_VARIANT ?? 'product';
if (!['product', 'no-audit', 'no-sql', 'memory', 'memory-no-audit'].includes(variant))
  throw new Error(`unknown BENCH_VARIANT ${variant}`);
const withAudit = !variant.endsWith('no-audit');
const inMemory = variant.startsWith('memory');
const defaults = BridgeConfigSchema.parse({});
const token = randomBytes(32).toString('base64url');
// One array for every redaction, as main/wiring/wiring.ts passes its `bridgeSecrets` (not a new one per call).
const secrets = [token];
const log = createLogger(
  dataDir,
  () => secrets,
  (file) => openOwnFileForAppend(dataDir, file),
);
const audit = new AuditLog({ dir: path.join(dataDir, 'audit'), secrets: () => secrets, onError: () => undefined });
const inner = inMemory ? new InMemoryTaskStore() : new SqliteTaskStore({ file: path.join(dataDir, 'contactor.db') });
// A/B knob for the WAL checkpoint interval (before/after numbers in docs/benchmark.md).
if (process.env.BENCH_WAL_AUTOCHECKPOINT && !inMemory) {
  (inner as unknown as { db: { pragma(p: string): unknown } }).db.pragma(
    `wal_autocheckpoint = ${Number(process.env.BENCH_WAL_AUTOCHECKPOINT)}`,
  );
}
if (variant === 'no-sql') skipCommitSql(inner);
const store = withAudit ? new AuditedTaskStore(inner, audit) : inner;
const registry = new AgentRegistry(new TurnSlots(defaults.max_concurrent_tasks));
const backend = new InProcessEchoBackend();
registry.add('echo', backend, {
  timeoutMs: 60_000,
  approvalTimeoutMs: 60_000,
  approvalRules: [],
  appendDecisionContract: false,
  // The load generator keeps up to 32 sends in flight; the default queue cap is far above that.
  maxQueue: 100_000,
  maxArtifactBytes: defaults.max_artifact_bytes,
  skills: [],
  tags: [],
});
const dispatcher = new Dispatcher({
  store,
  registry,
  feed: new EventFeed(),
  sinks: withAudit ? [audit] : [],
  maxDelegationDepth: defaults.max_delegation_depth,
});
const server = createBridgeServer({
  dispatcher,
  store,
  backends: [backend],
  host: '127.0.0.1',
  port: 0,
  dataDir,
  version: 'bench',
  token,
  allowedOrigins: [],
  maxBodyBytes: defaults.max_body_bytes,
  // In the request path like the product's, but never tripped: the load is the point. The durable ceiling's
  // probe test (tests/bench) sets a small one to compare the two servers' refusals.
  rateLimitPerMinute: Number(process.env.BENCH_RATE_LIMIT_PER_MINUTE ?? 1_000_000_000),
  onRefused: (refused) => (withAudit ? audit.refused(refused.reason, refused) : undefined),
  log,
  onStopped: () => audit.close(),
});
await server.start();
process.stdout.write(`${JSON.stringify({ ready: true, port: Number(new URL(server.url).port), token })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));

/**
 * Makes the store's group commit write nothing: its BEGIN / COMMIT and the pending writes' INSERT /
 * UPDATE statements become no-ops (they are plain fields at run time; see stores/group-commit.ts and
 * stores/pending-writes.ts); every insert reports a new row, so a replayed key is not found. The reads
 * that remain (a last seq not yet known) still run, as they would beside a commit thread.
 */
function skipCommitSql(store: unknown): void {
  type Runnable = { run: (...args: unknown[]) => unknown };
  // An insert that "changed" its row: a new task, never a known key.
  const noop: Runnable = { run: () => ({ changes: 1 }) };
  const s = store as { group: Record<string, unknown>; pending: { sql: Record<string, unknown> } };
  const fields: [Record<string, unknown>, string[]][] = [
    [s.group, ['begin', 'commit']],
    [s.pending.sql, ['insertTask', 'updateTask', 'insertEvent']],
  ];
  // The group's BEGIN is skipped, so SQLite is never in its transaction; the group asks the connection
  // whether it still is (a transaction SQLite rolled back means a lost group): here it always is.
  if (!('db' in s.group)) throw new Error('no-sql variant: the group commit has no field "db" any more');
  s.group.db = { inTransaction: true };
  // A renamed field would leave the real statement running and this row silently durable.
  for (const [owner, names] of fields) {
    for (const name of names) {
      if (typeof (owner[name] as Partial<Runnable> | undefined)?.run !== 'function')
        throw new Error(`no-sql variant: the store has no statement field "${name}" any more`);
      owner[name] = noop;
    }
  }
}
