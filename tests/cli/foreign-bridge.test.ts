/**
 * Two HOMEs, one port: HOME A's bridge holds it. `up` from HOME B must not adopt A's bridge (its token is
 * not B's: every later command would be refused), must say whose bridge it is and how to choose another
 * port, and `up --port N` must start B's own bridge on N. `doctor` from B must not send the user back to `up`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, closedPort, runCli } from './run-cli.js';

let dir: string;
let envA: Record<string, string>;
let envB: Record<string, string>;
let port: number;
let pidA: number;

function homeWithConfig(name: string, configPort: number): Record<string, string> {
  const home = path.join(dir, name);
  const env = cleanEnv(home);
  mkdirSync(path.join(env.XDG_CONFIG_HOME!, 'contactor'), { recursive: true });
  writeFileSync(path.join(env.XDG_CONFIG_HOME!, 'contactor', 'config.yaml'), `port: ${configPort}\n`);
  return env;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-foreign-'));
  port = await closedPort();
  envA = homeWithConfig('home-a', port);
  envB = homeWithConfig('home-b', port);
  const up = await runCli(['up', '--json'], { env: envA });
  expect(up.code, up.stderr).toBe(0);
  pidA = up.json<{ pid: number }>().pid;
});
afterAll(async () => {
  await runCli(['down'], { env: envB });
  await runCli(['down'], { env: envA });
  rmSync(dir, { recursive: true, force: true });
});

describe("another HOME's bridge on the configured port", () => {
  it('up from HOME B refuses it (exit 2), naming its pid and how to pick another port', async () => {
    const run = await runCli(['up'], { env: envB });
    expect(run.stdout).not.toContain('already running');
    expect(run.stderr).toContain(`the contactor bridge at http://127.0.0.1:${port} (pid ${pidA}`);
    expect(run.stderr).toContain("is not this config's");
    expect(run.stderr).toContain('`contactor up --port <n>`, or `port:` in config.yaml');
    expect(run.code).toBe(2);
  });

  it('doctor from HOME B says so too, and its fix is another port, not `contactor up`', async () => {
    const run = await runCli(['doctor'], { env: envB });
    expect(run.stdout).toContain(`✗ bridge: the contactor bridge at http://127.0.0.1:${port} (pid ${pidA}`);
    expect(run.stdout).not.toMatch(/fix: `contactor up`\n/);
    expect(run.stdout).toContain('fix: give this config another port: `contactor up --port <n>`');
  });

  it('up --port N from HOME B starts its own bridge on N, and B can use it', async () => {
    const other = await closedPort();
    const up = await runCli(['up', '--port', String(other), '--json'], { env: envB });
    expect(up.code, up.stderr).toBe(0);
    const { pid } = up.json<{ pid: number }>();
    expect(up.json<{ url: string; started: boolean }>()).toMatchObject({
      url: `http://127.0.0.1:${other}`,
      started: true,
    });
    expect((await runCli(['agents', '--json'], { env: envB })).code).toBe(0);
    // Its own bridge, on another port than asked: `up --port` says so instead of ignoring the port.
    const third = await closedPort();
    const moved = await runCli(['up', '--port', String(third)], { env: envB });
    expect(moved.stderr).toContain(`this config's bridge already runs at http://127.0.0.1:${other}`);
    expect(moved.stderr).toContain(`\`contactor up --port ${third}\``);
    expect(moved.code).toBe(2);
    // Without --port it is reused.
    const again = await runCli(['up'], { env: envB });
    expect(again.stdout).toBe(`already running at http://127.0.0.1:${other} (pid ${pid})\n`);
    expect(again.code).toBe(0);
  });
});
