/**
 * A real bridge for the multi-bridge tests (a2a peers, fan-out): temp config and data dir, the token
 * path, a JSON-RPC caller, and cleanup. Kept beside these tests so a second bridge on a chosen port is
 * one call.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createBridge } from '../../main/wiring.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');

export interface RpcReply {
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: unknown };
}

/** The parts of a task (as JSON) these tests read. */
export interface TaskJson {
  id: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: { artifactId: string; parts: { text?: string }[] }[];
  metadata: Record<string, unknown>;
}

/** One `agents/orchestrate` result entry. */
export interface ChildResult {
  agent: string;
  taskId: string;
  state: string;
  text: string;
  reason?: string;
  retryable?: boolean;
}

export interface PeerBridge {
  url: string;
  token: string;
  rpc(method: string, params?: unknown, opts?: { path?: string }): Promise<RpcReply>;
  stop(): Promise<void>;
}

/** A subprocess_cli agent running a Node script (path from the repo root). */
export function nodeScriptAgent(script: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'subprocess_cli', command: [process.execPath, path.resolve(REPO, script)], timeout_s: 30, ...extra };
}

export const echoAgent = (extra: Record<string, unknown> = {}) =>
  nodeScriptAgent('resources/agents/echo-agent.mjs', extra);

export async function startPeerBridge(
  agents: Record<string, unknown>,
  opts: { port?: number; config?: Record<string, unknown> } = {},
): Promise<PeerBridge> {
  const dir = mkdtempSync(path.join(tmpdir(), 'contactor-peer-'));
  const configPath = path.join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    stringify({ port: opts.port ?? 0, data_dir: path.join(dir, 'data'), require_token: true, ...opts.config, agents }),
  );
  const bridge = await createBridge({ configPath, env: { ...process.env, CONTACTOR_CONFIG: undefined } });
  try {
    await bridge.start();
  } catch (err) {
    await bridge.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const { url } = bridge;
  const token = bridge.token ?? '';
  return {
    url,
    token,
    async rpc(method, params, o = {}) {
      const res = await fetch(`${url}${o.path ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params ?? {} }),
      });
      return (await res.json()) as RpcReply;
    },
    async stop() {
      await bridge.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
