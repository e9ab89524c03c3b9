/**
 * A temp config for a desktop-shell test: the echo demo agent (`decide: A|B` → a real decision) and the fake
 * ACP agent (`permission` → a real permission request), on port 0 with the token, and an RPC helper.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { FAKE_AGENT } from '../fixtures/acp/harness.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

export const ECHO_AGENT = path.resolve(import.meta.dirname, '..', '..', 'resources', 'agents', 'echo-agent.mjs');

export interface DesktopConfig {
  root: string;
  configPath: string;
  dataDir: string;
  /** Rewrites config.yaml (e.g. broken, to test the error state). */
  write(text?: string): void;
  cleanup(): void;
}

export function desktopConfig(): DesktopConfig {
  const root = mkdtempSync(path.join(tmpdir(), 'contactor-shell-'));
  const configPath = path.join(root, 'config.yaml');
  const dataDir = path.join(root, 'data');
  const good = stringify({
    port: 0,
    data_dir: dataDir,
    agents: {
      echo: {
        kind: 'subprocess_cli',
        command: [process.execPath, ECHO_AGENT],
        cwd: root,
        timeout_s: TEST_TIMEOUT_MS / 1000,
        append_decision_contract: true, // as in config.example.yaml: the demo asks with the contract
      },
      // The fake agent reads its prompt's first word: the decision contract must not be appended.
      fake: {
        kind: 'acp',
        command: [process.execPath, FAKE_AGENT],
        cwd: root,
        timeout_s: TEST_TIMEOUT_MS / 1000,
        append_decision_contract: false,
      },
    },
  });
  const write = (text = good): void => writeFileSync(configPath, text);
  write();
  return {
    root,
    configPath,
    dataDir,
    write,
    cleanup: () =>
      // The bridge log (pino) may still be writing its last lines as the folder goes: rmSync retries a folder
      // that filled again (ENOTEMPTY) instead of the caller guessing how long to wait.
      rmSync(root, { recursive: true, force: true, maxRetries: 10 }),
  };
}

/** The environment a test bridge gets: the real one minus a CONTACTOR_CONFIG that would override ours. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, CONTACTOR_CONFIG: undefined, ...extra };
}

export async function rpc(
  bridge: { url: string; token: string | undefined },
  method: string,
  params: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC results are read ad hoc by the tests
): Promise<any> {
  const res = await fetch(`${bridge.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token ?? ''}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
