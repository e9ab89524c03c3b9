/**
 * Starting and stopping a real bridge: a taken port, the token policy, and the files a stop leaves
 * behind (docs/contract.md#security-defaults, docs/contract.md#discovery-file).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DiscoverySchema } from '../../main/schema/discovery.js';
import { createBridge } from '../../main/wiring/wiring.js';
import { echoAgent } from '../helpers/bridge.js';

let root: string;
let dataDir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'contactor-startup-'));
  dataDir = path.join(root, 'data');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function configFile(extra: Record<string, unknown>): string {
  const file = path.join(root, 'config.yaml');
  writeFileSync(file, stringify({ data_dir: dataDir, agents: { echo: echoAgent() }, ...extra }));
  return file;
}

const env = { PATH: process.env.PATH };

it('names a taken port, releases the data dir, and starts once the port is free', async () => {
  const squatter: Server = createServer();
  const port = await new Promise<number>((resolve) =>
    squatter.listen(0, '127.0.0.1', () => resolve((squatter.address() as { port: number }).port)),
  );
  const configPath = configFile({ port });
  try {
    const bridge = await createBridge({ configPath, env });
    await expect(bridge.start()).rejects.toThrow(new RegExp(`port ${port} .*already in use`));
    await bridge.stop();
    expect(existsSync(path.join(dataDir, 'bridge.lock'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'bridge.json'))).toBe(false);
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
  const again = await createBridge({ configPath, env });
  try {
    await again.start();
    expect((await fetch(`${again.url}/health`)).ok).toBe(true);
  } finally {
    await again.stop();
  }
});

it('refuses to listen beyond loopback without a token', async () => {
  const configPath = configFile({ port: 0, host: '0.0.0.0', require_token: false });
  await expect(createBridge({ configPath, env })).rejects.toThrow(/without a token/);
  expect(existsSync(path.join(dataDir, 'bridge.lock'))).toBe(false);
});

it('serves without a token on loopback when require_token is false, and publishes none', async () => {
  const configPath = configFile({ port: 0, require_token: false });
  const bridge = await createBridge({ configPath, env });
  await bridge.start();
  try {
    expect(bridge.token).toBeUndefined();
    const res = await fetch(`${bridge.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { agent: 'echo', text: 'open door' },
      }),
    });
    const body = (await res.json()) as { result: { status: { state: string } } };
    expect(body.result.status.state).toBe('completed');
    const card = (await (await fetch(`${bridge.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.securitySchemes).toBeUndefined();
  } finally {
    await bridge.stop();
  }
  expect(existsSync(path.join(dataDir, 'bridge.json'))).toBe(false);
});

it('writes a user-only discovery file naming itself, and removes it on stop', async () => {
  const bridge = await createBridge({ configPath: configFile({ port: 0 }), env });
  await bridge.start();
  const file = path.join(dataDir, 'bridge.json');
  try {
    const discovery = DiscoverySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(discovery).toMatchObject({ url: bridge.url, pid: process.pid, token: bridge.token });
    if (process.platform !== 'win32') {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.join(dataDir, 'token')).mode & 0o777).toBe(0o600);
    }
  } finally {
    await bridge.stop();
  }
  expect(existsSync(file)).toBe(false);
});
