/**
 * The one way tests get a real bridge: a temp config and data dir, port 0 unless a test
 * needs a fixed one, the per-install token (every test uses the authenticated path), and cleanup.
 * `stop` keeps the files so a test can read the database or the audit log afterwards; `cleanup` removes them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Timers } from '../../main/runtime/timers.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { TEST_TIMEOUT_MS } from './timeouts.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const ECHO_AGENT = path.join(REPO_ROOT, 'resources', 'agents', 'echo-agent.mjs');
export const CLI_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli');
export const INTEGRATION_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'integration');
const FAKE_ACP_AGENT = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');

export interface TestBridge {
  bridge: Bridge;
  url: string;
  token: string;
  /** The temp folder holding config.yaml and (unless `dataDir` was given) the data dir. */
  dir: string;
  dataDir: string;
  configPath: string;
  /** POST one JSON-RPC call with the token; returns the parsed response body. */
  rpc(
    method: string,
    params?: unknown,
    opts?: { path?: string; headers?: Record<string, string> },
  ): Promise<RpcResponse>;
  /** Stops the bridge, keeping its files (idempotent). */
  stop(): Promise<void>;
  /** Stops and removes the temp folder (idempotent). */
  cleanup(): Promise<void>;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: unknown;
  result?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  error?: { code: number; message: string; data?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface TestConfigOptions {
  /** Agent entries as in config.yaml; default: one `echo` demo agent. */
  agents?: Record<string, unknown>;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  /** Reuse a data dir (restart tests); default: `<dir>/data`. */
  dataDir?: string;
  /** A fixed port (bridges that must know each other's URL before they start); default 0. */
  port?: number;
}

export interface TestBridgeOptions extends TestConfigOptions {
  /** A temp folder the test made (to point agents' evidence files into it); default: a new one. */
  dir?: string;
  /** Give the bridge only PATH and HOME (= the temp folder), as a fresh account would; default: this process's env. */
  isolatedEnv?: boolean;
  /** The clock question expiry and turn timeouts run on (tests/helpers/manual-timers.ts); default: the real one. */
  timers?: Timers;
}

/** A fresh temp folder for one bridge; pass it as `dir` to keep a test's own files beside the bridge's. */
export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'contactor-test-'));
}

/** Writes `<dir>/config.yaml` for a bridge (in-process here, or a child process a test starts itself). */
export function writeTestConfig(dir: string, opts: TestConfigOptions = {}): { configPath: string; dataDir: string } {
  const dataDir = opts.dataDir ?? path.join(dir, 'data');
  const configPath = path.join(dir, 'config.yaml');
  const agents = opts.agents ?? { echo: echoAgent() };
  writeFileSync(
    configPath,
    stringify({ port: opts.port ?? 0, data_dir: dataDir, require_token: true, ...opts.config, agents }),
  );
  return { configPath, dataDir };
}

/** A subprocess_cli agent running `node <script> ...args` (script relative to the repo root unless absolute). */
export function nodeScriptAgent(
  script: string,
  extra: Record<string, unknown> = {},
  args: string[] = [],
): Record<string, unknown> {
  return {
    kind: 'subprocess_cli',
    command: [process.execPath, path.resolve(REPO_ROOT, script), ...args],
    timeout_s: TEST_TIMEOUT_MS / 1000,
    ...extra,
  };
}

/** The built-in demo agent: echoes; `decide: A|B` asks a decision; an answer gets "Going with X. Done." */
export function echoAgent(extra: Record<string, unknown> = {}): Record<string, unknown> {
  // As in resources/config.example.yaml: a plain command gets no decision contract unless it asks for it.
  return nodeScriptAgent(ECHO_AGENT, { append_decision_contract: true, ...extra });
}

/** A CLI agent running one of tests/fixtures/cli/*.mjs with Node. */
export function fixtureAgent(file: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return nodeScriptAgent(path.join(CLI_FIXTURES, file), extra);
}

/** A CLI agent running `node tests/fixtures/integration/<file> ...args`. */
export function integrationAgent(
  file: string,
  args: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return nodeScriptAgent(path.join(INTEGRATION_FIXTURES, file), extra, args);
}

/**
 * The fake ACP agent (tests/fixtures/acp): each prompt's first word picks the turn (`long <n>` streams
 * n characters in 100-character chunks, `stream` ticks until canceled, `permission` asks first). The
 * decision contract is off so the prompt's words reach the fixture unchanged.
 */
export function fakeAcpAgent(args: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'acp',
    command: [process.execPath, FAKE_ACP_AGENT, ...args],
    append_decision_contract: false,
    timeout_s: TEST_TIMEOUT_MS / 1000,
    ...extra,
  };
}

export async function startTestBridge(opts: TestBridgeOptions = {}): Promise<TestBridge> {
  const dir = opts.dir ?? tempDir();
  const { configPath, dataDir } = writeTestConfig(dir, opts);
  const env = opts.isolatedEnv
    ? { PATH: process.env.PATH, HOME: dir }
    : { ...process.env, CONTACTOR_CONFIG: undefined };
  let bridge: Bridge | undefined;
  try {
    bridge = await createBridge({ configPath, env, ...(opts.timers ? { timers: opts.timers } : {}) });
    await bridge.start();
  } catch (err) {
    await bridge?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = bridge;
  const { url } = started;
  const token = started.token ?? '';
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopped ??= started.stop());
  return {
    bridge: started,
    url,
    token,
    dir,
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
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
