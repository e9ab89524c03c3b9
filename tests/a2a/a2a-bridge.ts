/**
 * A real bridge for the conformance tests: temp config and data dir, port 0, the per-install token
 * required (as in production), agents as real child processes; `cleanup` stops it and removes the dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createBridge } from '../../main/wiring.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
const ECHO_AGENT = path.join(REPO_ROOT, 'resources', 'agents', 'echo-agent.mjs');
const CLI_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli');
const FAKE_ACP_AGENT = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');

export interface RpcResponse {
  jsonrpc: '2.0';
  id: unknown;
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: unknown };
}

export interface A2aBridge {
  url: string;
  token: string;
  /** POSTs one JSON-RPC call with the bearer token; returns the parsed body. */
  rpc(
    method: string,
    params?: unknown,
    opts?: { path?: string; headers?: Record<string, string> },
  ): Promise<RpcResponse>;
  cleanup(): Promise<void>;
}

/** The built-in demo agent: echoes; `decide: A|B` asks a decision; an answer gets "Going with X. Done." */
export function echoAgent(): Record<string, unknown> {
  return { kind: 'subprocess_cli', command: [process.execPath, ECHO_AGENT], timeout_s: 30 };
}

/** A CLI agent running one of tests/fixtures/cli/*.mjs. */
export function fixtureAgent(file: string): Record<string, unknown> {
  return { kind: 'subprocess_cli', command: [process.execPath, path.join(CLI_FIXTURES, file)], timeout_s: 30 };
}

/**
 * The fake ACP agent (tests/fixtures/acp): each prompt's first word picks the turn (`long <n>` streams
 * n characters in 100-character chunks, `stream` ticks until canceled, `permission` asks first). The
 * decision contract is off so the prompt's words reach the fixture unchanged.
 */
export function fakeAcpAgent(): Record<string, unknown> {
  return { kind: 'acp', command: [process.execPath, FAKE_ACP_AGENT], append_decision_contract: false, timeout_s: 30 };
}

export async function startA2aBridge(agents: Record<string, unknown> = { echo: echoAgent() }): Promise<A2aBridge> {
  const dir = mkdtempSync(path.join(tmpdir(), 'contactor-a2a-'));
  const configPath = path.join(dir, 'config.yaml');
  writeFileSync(configPath, stringify({ port: 0, data_dir: path.join(dir, 'data'), require_token: true, agents }));
  const bridge = await createBridge({ configPath, env: { PATH: process.env.PATH, HOME: dir } });
  try {
    await bridge.start();
  } catch (err) {
    await bridge.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = bridge.url;
  const token = bridge.token ?? '';
  return {
    url,
    token,
    async rpc(method, params, o = {}) {
      const res = await fetch(`${url}${o.path ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...o.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }),
      });
      return (await res.json()) as RpcResponse;
    },
    async cleanup() {
      await bridge.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
