/**
 * The shared test bridge (tests/helpers/bridge.ts) plus what these tests call on it: JSON-RPC with the
 * token, agent entries for the demo and the CLI fixtures, and cleanup. One place to adapt if the shared
 * helper changes shape.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { startTestBridge as startShared, type TestBridge as SharedBridge } from '../helpers/bridge.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const ECHO_AGENT = path.join(REPO_ROOT, 'resources', 'agents', 'echo-agent.mjs');
export const CLI_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli');
export const INTEGRATION_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'integration');

export interface RpcResponse {
  jsonrpc: '2.0';
  id: unknown;
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: unknown };
}

export interface TestBridge {
  bridge: SharedBridge['bridge'];
  url: string;
  token: string;
  dataDir: string;
  configPath: string;
  /** POSTs one JSON-RPC call with the token; returns the parsed response body. */
  rpc(
    method: string,
    params?: unknown,
    opts?: { path?: string; headers?: Record<string, string> },
  ): Promise<RpcResponse>;
  /** Stops the bridge and removes its temp dir (idempotent). */
  cleanup(): Promise<void>;
}

export function echoAgent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'subprocess_cli', command: [process.execPath, ECHO_AGENT], timeout_s: 30, ...extra };
}

/** A CLI agent running one of tests/fixtures/cli/*.mjs with the Node running the tests. */
export function fixtureAgent(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.join(CLI_FIXTURES, file)],
    timeout_s: 30,
    ...extra,
  };
}

/** A CLI agent running `node tests/fixtures/integration/<file> ...args`. */
export function integrationAgent(
  file: string,
  args: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.join(INTEGRATION_FIXTURES, file), ...args],
    timeout_s: 30,
    ...extra,
  };
}

export async function startTestBridge(
  opts: { agents?: Record<string, Record<string, unknown>>; config?: Record<string, unknown> } = {},
): Promise<TestBridge> {
  const shared = await startShared({
    agents: opts.agents ?? { echo: echoAgent() },
    ...(opts.config ? { config: opts.config } : {}),
  });
  let done: Promise<void> | undefined;
  return {
    bridge: shared.bridge,
    url: shared.url,
    token: shared.token,
    dataDir: shared.dataDir,
    configPath: shared.configPath,
    async rpc(method, params, o = {}) {
      const res = await fetch(`${shared.url}${o.path ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${shared.token}`, ...o.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }),
      });
      return (await res.json()) as RpcResponse;
    },
    cleanup() {
      done ??= shared.stop().then(() => rmSync(path.dirname(shared.configPath), { recursive: true, force: true }));
      return done;
    },
  };
}
