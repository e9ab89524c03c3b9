/**
 * One way for integration tests to get a real bridge: a temp config and data dir, port 0, the
 * per-install token (every test uses the authenticated path), and cleanup.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createBridge, type Bridge } from '../../main/wiring.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const ECHO_AGENT = path.join(REPO_ROOT, 'resources', 'agents', 'echo-agent.mjs');
export const CLI_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli');

export interface TestBridge {
  bridge: Bridge;
  url: string;
  token: string;
  dataDir: string;
  configPath: string;
  /** POST one JSON-RPC call with the token; returns the parsed response body. */
  rpc(
    method: string,
    params?: unknown,
    opts?: { path?: string; headers?: Record<string, string> },
  ): Promise<RpcResponse>;
  /** Stops the bridge (idempotent). */
  stop(): Promise<void>;
  /** Stops and removes the temp dir. */
  cleanup(): Promise<void>;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: unknown;
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: unknown };
}

export interface TestBridgeOptions {
  /** Agent entries as in config.yaml; default: one `echo` demo agent. */
  agents?: Record<string, unknown>;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  /** Reuse a data dir (restart tests). */
  dataDir?: string;
}

export function echoAgent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'subprocess_cli', command: [process.execPath, ECHO_AGENT], timeout_s: 30, ...extra };
}

/** A CLI agent running one of tests/fixtures/cli/*.mjs with Node. */
export function fixtureAgent(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.join(CLI_FIXTURES, file)],
    timeout_s: 30,
    ...extra,
  };
}

export async function startTestBridge(opts: TestBridgeOptions = {}): Promise<TestBridge> {
  const root = mkdtempSync(path.join(tmpdir(), 'contactor-test-'));
  const dataDir = opts.dataDir ?? path.join(root, 'data');
  const configPath = path.join(root, 'config.yaml');
  writeFileSync(
    configPath,
    stringify({ port: 0, data_dir: dataDir, agents: opts.agents ?? { echo: echoAgent() }, ...opts.config }),
  );
  const bridge = await createBridge({ configPath, env: { ...process.env, CONTACTOR_CONFIG: undefined } });
  await bridge.start();
  const url = bridge.url;
  const token = bridge.token ?? '';
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= bridge.stop());
  return {
    bridge,
    url,
    token,
    dataDir,
    configPath,
    async rpc(method, params, o = {}) {
      const res = await fetch(`${url}${o.path ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...o.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }),
      });
      return (await res.json()) as RpcResponse;
    },
    stop,
    async cleanup() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
