/**
 * A real in-process bridge for the attack tests: temp config (port 0), its own data dir, the token on.
 * Unlike the shared helper, `stop` keeps the data dir so a test can inspect the SQLite file and the
 * audit log afterwards, or start a second bridge on it; `cleanup` removes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createBridge, type Bridge } from '../../main/wiring.js';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const SECURITY_FIXTURES = path.join(REPO, 'tests', 'fixtures', 'security');
export const ECHO_AGENT = path.join(REPO, 'resources', 'agents', 'echo-agent.mjs');

export interface RpcReply {
  jsonrpc: '2.0';
  id: unknown;
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface AttackBridge {
  url: string;
  token: string;
  dir: string;
  dataDir: string;
  configPath: string;
  bridge: Bridge;
  rpc(method: string, params?: unknown, headers?: Record<string, string>): Promise<RpcReply>;
  /** Stops the bridge, keeping its files (idempotent). */
  stop(): Promise<void>;
  /** Stops and removes the temp folder. */
  cleanup(): Promise<void>;
}

export interface AttackBridgeOptions {
  agents?: Record<string, Record<string, unknown>>;
  config?: Record<string, unknown>;
  /** A temp folder the test made (to point agents' evidence files into it); default: a new one. */
  dir?: string;
}

/** A subprocess_cli agent running `node <file>` (relative to tests/fixtures/security unless absolute). */
export function nodeFixture(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.resolve(SECURITY_FIXTURES, file)],
    timeout_s: 30,
    append_decision_contract: false,
    ...extra,
  };
}

/** Writes the config a bridge (in-process or a child) reads: port 0, the data dir under `dir`. */
export function writeBridgeConfig(
  dir: string,
  opts: AttackBridgeOptions = {},
): { configPath: string; dataDir: string } {
  const dataDir = path.join(dir, 'data');
  const configPath = path.join(dir, 'config.yaml');
  const agents = opts.agents ?? { echo: nodeFixture(ECHO_AGENT) };
  writeFileSync(configPath, stringify({ port: 0, data_dir: dataDir, require_token: true, ...opts.config, agents }));
  return { configPath, dataDir };
}

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'contactor-attack-'));
}

export async function startAttackBridge(opts: AttackBridgeOptions = {}): Promise<AttackBridge> {
  const dir = opts.dir ?? tempDir();
  const { configPath, dataDir } = writeBridgeConfig(dir, opts);
  let bridge: Bridge | undefined;
  try {
    bridge = await createBridge({ configPath, env: { PATH: process.env.PATH, HOME: dir } });
    await bridge.start();
  } catch (err) {
    await bridge?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = bridge;
  const token = started.token ?? '';
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= started.stop());
  return {
    url: started.url,
    token,
    dir,
    dataDir,
    configPath,
    bridge: started,
    async rpc(method, params, headers) {
      const res = await fetch(`${started.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }),
      });
      return (await res.json()) as RpcReply;
    },
    stop,
    async cleanup() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
