/**
 * contactor with its durable SQLite store and the in-process echo backend, built from parts the way
 * main/wiring.ts builds it (Dispatcher + AgentRegistry + SqliteTaskStore + BridgeServer), token on.
 * Argv: <dataDir>. Prints one JSON line `{ready, port, token}` once listening.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createLogger } from '../../main/logging.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { BridgeServer } from '../../main/server.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { InProcessEchoBackend } from './echo-backend.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: contactor-echo <dataDir>');
const token = randomBytes(32).toString('base64url');
const store = new SqliteTaskStore({ file: path.join(dataDir, 'contactor.db') });
const registry = new AgentRegistry();
const backend = new InProcessEchoBackend();
registry.add('echo', backend, {
  timeoutMs: 60_000,
  approvalTimeoutMs: 60_000,
  approvalRules: [],
  appendDecisionContract: false,
  maxQueue: 100_000,
  skills: [],
  tags: [],
});
const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
const log = createLogger(dataDir, () => [token]);
const server = new BridgeServer({
  dispatcher,
  store,
  backends: [backend],
  host: '127.0.0.1',
  port: 0,
  dataDir,
  version: 'bench',
  token,
  allowedOrigins: [],
  maxBodyBytes: 1024 * 1024,
  log,
});
await server.start();
process.stdout.write(`${JSON.stringify({ ready: true, port: Number(new URL(server.url).port), token })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
