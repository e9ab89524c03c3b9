/**
 * Run by `npm run test:windows` on Linux's Node after the Wine phase (vitest.config.ts in this folder): a bridge
 * started by the Windows CLI (`node.exe contactor.cjs serve`) under Wine, on a data dir the Windows side sees
 * as a `Z:\` path, reached from Linux by the Linux CLI (`send`, `answer`) and stopped by the Windows CLI
 * (`down`; a Linux `down` would signal a Windows pid number in the Linux pid space).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, closedPort, runCli } from '../../cli/run-cli.js';
import { eventually } from '../../helpers/wait.js';
import { REPO_ROOT } from '../../helpers/bridge.js';

const NODE_EXE = process.env.CONTACTOR_LANE_NODE_EXE ?? '';
const WINE = process.env.CONTACTOR_LANE_WINE ?? '';
const CLI_CJS = path.join(REPO_ROOT, 'out', 'cli', 'contactor.cjs');
const zPath = (p: string): string => `Z:${p.replaceAll('/', '\\')}`;

let dir: string;
let config: string;
let dataDir: string;
let serve: ChildProcess;
let serveExit: Promise<number | null>;

/** The Windows CLI under Wine; Wine cannot write into a Linux pipe, so its output goes through files. */
function windowsCli(args: string[], name: string): { child: ChildProcess; output: () => string } {
  const out = path.join(dir, `${name}.out`);
  const fd = openSync(out, 'w');
  const child = spawn(WINE, [NODE_EXE, zPath(CLI_CJS), ...args], {
    // The Wine-only keep-alive preload (run.mjs) goes to the Windows Node only; Linux's Node cannot load a Z: URL.
    env: { ...process.env, ...cleanEnv(path.join(dir, 'home')), NODE_OPTIONS: process.env.CONTACTOR_LANE_NODE_OPTIONS },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  return { child, output: () => readFileSync(out, 'utf8') };
}

const exitOf = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => child.once('exit', (code) => resolve(code)));

describe.skipIf(!existsSync(NODE_EXE) || !existsSync(WINE))('a bridge under Wine, reached from Linux', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'contactor-wine-bridge-'));
    config = path.join(dir, 'config.yaml');
    dataDir = path.join(dir, 'data');
    const echo = JSON.stringify([
      zPath(NODE_EXE),
      zPath(path.join(REPO_ROOT, 'resources', 'agents', 'echo-agent.mjs')),
    ]);
    writeFileSync(
      config,
      `port: ${await closedPort()}\ndata_dir: ${JSON.stringify(zPath(dataDir))}\nagents:\n  echo: { kind: subprocess_cli, command: ${echo}, append_decision_contract: true }\n`,
    );
    const started = windowsCli(['serve', '-c', zPath(config)], 'serve');
    serve = started.child;
    serveExit = exitOf(serve);
    await eventually(() => existsSync(path.join(dataDir, 'bridge.json'))).catch((err: unknown) => {
      throw new Error(`the bridge under Wine did not start: ${started.output()}`, { cause: err });
    });
  }, 90_000);
  afterAll(async () => {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the discovery file names a Windows process serving on loopback', () => {
    const discovery = JSON.parse(readFileSync(path.join(dataDir, 'bridge.json'), 'utf8')) as { url: string };
    expect(discovery.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('the Linux CLI sends a task and answers a decision through it', async () => {
    const env = cleanEnv(path.join(dir, 'linux-home'));
    const sent = await runCli(['send', 'echo', 'hello from Linux', '--data-dir', dataDir], { env });
    expect(sent.stdout).toBe('echo: hello from Linux\n');
    expect(sent.code).toBe(0);
    const asked = await runCli(['send', 'echo', 'pick. decide: YAML|TOML', '--data-dir', dataDir], { env });
    expect(asked.code).toBe(3);
    const id = /contactor answer (\S+)/.exec(asked.stdout)?.[1];
    const answered = await runCli(['answer', id!, '1', '--data-dir', dataDir], { env });
    expect(answered.stdout).toBe('Going with YAML. Done.\n');
    expect(answered.code).toBe(0);
  });

  it('the Windows CLI stops it with down', async () => {
    const down = windowsCli(['down', '-c', zPath(config)], 'down');
    expect(await exitOf(down.child), down.output()).toBe(0);
    expect(down.output()).toContain('stopped the bridge');
    await serveExit; // the Wine process of `serve` ends: the bridge is gone, not only unlisted
    // A clean stop (not a TerminateProcess) removes its own discovery file.
    expect(existsSync(path.join(dataDir, 'bridge.json'))).toBe(false);
  });
});
