/**
 * A headless bridge in a child process, built by createBridge from a config file written here, on a
 * fixed port so the caller can time startup to the first healthy `/health`.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { stringify } from 'yaml';
import { HEADLESS_NODE_FLAGS } from '../../main/cli/bridge-client/node-flags.js';
import { startChild, type RunningChild } from './children.js';

/** The per-caller rate limit stays in the request path but never trips: the load is the point. */
const UNLIMITED = 1_000_000_000;

export type BridgeChild = RunningChild<{ ready: boolean; port: number; token: string }>;

export async function startBridgeChild(opts: {
  buildDir: string;
  root: string;
  dataDir: string;
  agents: Record<string, unknown>;
  port?: number;
  /** Extra top-level config keys. */
  config?: Record<string, unknown>;
  /** Node flags instead of the headless bridge's own (HEADLESS_NODE_FLAGS). */
  nodeFlags?: readonly string[];
}): Promise<BridgeChild> {
  const configPath = path.join(opts.root, `config-${Date.now()}.yaml`);
  writeFileSync(
    configPath,
    stringify({
      port: opts.port ?? 0,
      data_dir: opts.dataDir,
      agents: opts.agents,
      rate_limit_per_minute: UNLIMITED,
      ...opts.config,
    }),
  );
  // Started the way `contactor up` starts a headless bridge.
  return startChild(path.join(opts.buildDir, 'bridge-serve.mjs'), [configPath], {
    timeoutMs: 60_000,
    nodeFlags: opts.nodeFlags ?? HEADLESS_NODE_FLAGS,
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves with the ms from `since` until GET /health answers 200 (polled every 2 ms). */
export async function waitHealthy(port: number, since: number, timeoutMs = 30_000): Promise<number> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ok) return performance.now() - since;
    if (performance.now() - since > timeoutMs)
      throw new Error(`no healthy /health on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
