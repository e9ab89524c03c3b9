/**
 * A bridge as a real child process: `contactor serve`, started as users start it (bin/contactor.js runs the
 * bundle tests/global-setup.ts builds; ~1 s faster per start than compiling the source through tsx).
 * Ready = its discovery file names it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DiscoverySchema, type Discovery } from '../../main/schema/discovery.js';
import { REPO_ROOT } from '../helpers/bridge.js';

const CLI = path.join(REPO_ROOT, 'bin', 'contactor.js');

export interface BridgeProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
}

export function spawnBridge(configPath: string): BridgeProcess {
  const env = { ...process.env, CONTACTOR_CONFIG: undefined };
  const child = spawn(process.execPath, [CLI, 'serve', '-c', configPath], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => err };
}

/** Waits until the discovery file in `dataDir` names `pid` and /health answers; returns the file. */
export async function waitForDiscovery(dataDir: string, proc: BridgeProcess, ms = 20_000): Promise<Discovery> {
  const file = path.join(dataDir, 'bridge.json');
  const deadline = Date.now() + ms;
  let exitCode: number | null | undefined;
  void proc.exited.then((c) => (exitCode = c));
  for (;;) {
    if (exitCode !== undefined) throw new Error(`bridge exited (${exitCode}) before it was ready: ${proc.stderr()}`);
    if (existsSync(file)) {
      const found = DiscoverySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (found.success && found.data.pid === proc.child.pid) {
        const health = await fetch(`${found.data.url}/health`).catch(() => undefined);
        if (health?.ok) return found.data;
      }
    }
    if (Date.now() > deadline) throw new Error(`bridge not ready within ${ms} ms: ${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** JSON-RPC against a discovered bridge. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function call(bridge: Discovery, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${bridge.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge.token ?? ''}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}
