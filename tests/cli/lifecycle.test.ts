/** `up` / `down` / `serve` for real: a detached bridge on a temp data dir and a free port. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../main/config/config.js';
import { writeDiscovery } from '../../main/config/data-dir.js';
import { HEADLESS_NODE_FLAGS, headlessNodeFlags } from '../../main/cli/bridge-client/node-flags.js';
import { isAlive } from '../../main/cli/bridge-client/pid.js';
import { eventually } from '../helpers/wait.js';
import { REPO_ROOT } from '../helpers/bridge.js';
import { CLI, cleanEnv, closedPort, defaultConfigIn, runCli } from './run-cli.js';

let dir: string;
let config: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-up-'));
  config = path.join(dir, 'config.yaml');
  const echo = JSON.stringify([process.execPath, path.join(REPO_ROOT, 'resources/agents/echo-agent.mjs')]);
  writeFileSync(
    config,
    `port: ${await closedPort()}\ndata_dir: ${path.join(dir, 'data')}\nagents:\n  echo: { kind: subprocess_cli, command: ${echo} }\n`,
  );
  env = cleanEnv(dir);
});
afterAll(async () => {
  await runCli(['down', '-c', config], { env });
  rmSync(dir, { recursive: true, force: true });
});

/** What `kill -0 pid` says: 'ok' while any process (a zombie too) has the pid, else the error code. */
function signalZero(pid: number): string {
  try {
    process.kill(pid, 0);
    return 'ok';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'error';
  }
}

describe('up and down', () => {
  it('three up at once on one data dir: one starts the bridge, the others wait for it and report it', async () => {
    const race = path.join(dir, 'race.yaml');
    writeFileSync(race, `port: ${await closedPort()}\ndata_dir: ${path.join(dir, 'data-race')}\n`);
    const runs = await Promise.all([1, 2, 3].map(() => runCli(['up', '-c', race, '--json'], { env })));
    try {
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const reports = runs.map((run) => run.json<{ started: boolean; url: string; pid: number }>());
      expect(reports.filter((r) => r.started)).toHaveLength(1);
      const [winner] = reports.filter((r) => r.started);
      for (const report of reports) expect(report).toMatchObject({ url: winner!.url, pid: winner!.pid });
      expect(isAlive(winner!.pid)).toBe(true);
      // Exactly one bridge: the losers' own `serve` processes are gone.
      if (process.platform === 'linux') {
        const serving = readdirSync('/proc')
          .filter((entry) => /^\d+$/.test(entry))
          .filter((pid) => {
            try {
              const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
              return argv.includes('serve') && argv.includes(race) && isAlive(Number(pid));
            } catch {
              return false;
            }
          });
        expect(serving).toEqual([String(winner!.pid)]);
      }
      const human = await runCli(['up', '-c', race], { env });
      expect(human.stdout).toBe(`already running at ${winner!.url} (pid ${winner!.pid})\n`);
    } finally {
      expect((await runCli(['down', '-c', race], { env })).code).toBe(0);
    }
  });

  it('up starts a bridge and waits until healthy; again it reuses it; down stops it; again says not running', async () => {
    const up = await runCli(['up', '-c', config, '--json'], { env });
    expect(up.code).toBe(0);
    const started = up.json<{ started: boolean; url: string; pid: number }>();
    expect(started.started).toBe(true);
    // Started as a headless bridge is: with the memory-capping Node flags (what the benchmark measures).
    if (process.platform === 'linux') {
      const argv = readFileSync(`/proc/${started.pid}/cmdline`, 'utf8').split('\0');
      for (const flag of HEADLESS_NODE_FLAGS) expect(argv).toContain(flag);
      expect(argv.indexOf(HEADLESS_NODE_FLAGS[0]!)).toBeLessThan(argv.indexOf('serve'));
    }

    const again = await runCli(['up', '-c', config], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already running at ${started.url}`);

    const sent = await runCli(['send', 'echo', 'through up', '-c', config], { env });
    expect(sent.stdout).toBe('echo: through up\n');

    const down = await runCli(['down', '-c', config], { env });
    expect(down.code).toBe(0);
    expect(down.stdout).toContain(`pid ${started.pid}`);
    // Said once the process is gone, not merely exited and waiting to be reaped (`kill -0` still finds that).
    expect(signalZero(started.pid)).toBe('ESRCH');
    expect((await runCli(['status', '-c', config], { env })).code).toBe(5);
    // Stopped cleanly, not terminated (Node's process.kill on Windows): it removed its own discovery file.
    expect(existsSync(path.join(dir, 'data', 'bridge.json'))).toBe(false);

    const downAgain = await runCli(['down', '-c', config], { env });
    expect(downAgain.code).toBe(0);
    expect(downAgain.stdout).toContain('not running');
  });

  it('up with a broken config fails with the file:line problem (exit 2)', async () => {
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, `data_dir: ${path.join(dir, 'data-broken')}\nport: lots\n`);
    const run = await runCli(['up', '-c', broken], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${broken}:2: port:`);
  });

  it('up validates the config before probing: a running bridge does not hide a config broken since', async () => {
    const own = path.join(dir, 'own.yaml');
    const good = `port: ${await closedPort()}\ndata_dir: ${path.join(dir, 'data-own')}\n`;
    writeFileSync(own, good);
    const up = await runCli(['up', '-c', own, '--json'], { env });
    expect(up.code).toBe(0);
    try {
      writeFileSync(own, `${good}agents:\n  echo: { kind: subprocess_cli }\n`);
      const again = await runCli(['up', '-c', own], { env });
      expect(again.stderr).toContain(`${own}:4: agents.echo.command:`);
      expect(again.code).toBe(2);
    } finally {
      writeFileSync(own, good);
      expect((await runCli(['down', '-c', own], { env })).code).toBe(0);
    }
  });
});

describe('POST /shutdown (how down stops a bridge on Windows, where there is no SIGTERM)', () => {
  it('stops a served bridge cleanly when the token is right, and refuses without it', async () => {
    const up = await runCli(['up', '-c', config, '--json'], { env });
    expect(up.code).toBe(0);
    const { url, pid } = up.json<{ url: string; pid: number }>();
    const token = readFileSync(path.join(dir, 'data', 'token'), 'utf8').trim();
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/shutdown`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });

    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await fetch(`${url}/health`)).ok).toBe(true);

    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(202);
    await eventually(() => !isAlive(pid));
    expect(existsSync(path.join(dir, 'data', 'bridge.json'))).toBe(false);
  });
});

describe('headless Node flags', () => {
  it('are given to Node, and not to Electron in Node mode (its V8 flags go another way)', () => {
    expect(headlessNodeFlags({})).toEqual([...HEADLESS_NODE_FLAGS]);
    expect(headlessNodeFlags({ electron: '45.0.0' })).toEqual([]);
  });
});

describe('serve', () => {
  it('the first serve says where it wrote the default config; the next one does not', async () => {
    const home = mkdtempSync(path.join(dir, 'first-home-'));
    const firstEnv = cleanEnv(home);
    const serveOnce = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env: firstEnv });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('contactor bridge on')) child.kill('SIGTERM');
        });
        child.on('error', reject);
        child.on('exit', () => resolve(out));
      });
    const config = defaultConfigIn(home);
    const first = await serveOnce();
    expect(first).toContain(`wrote the default config to ${config}`);
    expect(existsSync(config)).toBe(true);
    expect(await serveOnce()).not.toContain('wrote the default config');
  });

  it('so does the first up', async () => {
    const upEnv = cleanEnv(mkdtempSync(path.join(dir, 'up-home-')));
    // Without a discovery file, `up` first asks the address of the config it just wrote: the default one,
    // where the user's own bridge listens. A stale file (its bridge gone) names a closed port instead, as after
    // a crash, so this test never reaches 127.0.0.1:8791 (tests/helpers/default-port-guard.ts).
    const stalePort = await closedPort();
    const dataDir = defaultDataDir(upEnv, process.platform);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeDiscovery(dataDir, {
      url: `http://127.0.0.1:${stalePort}`,
      port: stalePort,
      pid: 2 ** 22 + 12345, // above Linux's pid_max: never a running process
      version: '0.0.0',
      startedAt: new Date(0).toISOString(),
    });
    const up = await runCli(['up', '--port', String(await closedPort())], { env: upEnv });
    try {
      expect(up.code, up.stderr).toBe(0);
      expect(up.stdout).toContain(`wrote the default config to ${defaultConfigIn(upEnv.HOME!)}`);
    } finally {
      await runCli(['down'], { env: upEnv });
    }
  });

  it('the first up says it wrote the default config even when it then refuses to start', async () => {
    const upEnv = cleanEnv(mkdtempSync(path.join(dir, 'refused-home-')));
    // A program that is not HTTP: it greets and hangs up.
    const holder = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n').destroySoon());
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    try {
      const up = await runCli(['up', '--port', String(port)], { env: upEnv });
      expect(up.code).toBe(2);
      expect(up.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(up.stdout).toBe(
        `wrote the default config to ${defaultConfigIn(upEnv.HOME!)} (a demo agent, echo, and commented examples)\n`,
      );
      expect(existsSync(defaultConfigIn(upEnv.HOME!))).toBe(true);
    } finally {
      holder.close();
    }
  });

  it('a port already in use is exit 2 with what to do', async () => {
    const blocker = await runCli(['up', '-c', config, '--json'], { env });
    const { url } = blocker.json<{ url: string }>();
    const port = new URL(url).port;
    const run = await runCli(['serve', '-c', config, '--data-dir', path.join(dir, 'other-data'), '--port', port], {
      env,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`port ${port}`);
    expect(run.stderr).toContain('already in use');
    if (process.platform === 'linux')
      expect(run.stderr).toContain(`already in use (held by pid ${blocker.json<{ pid: number }>().pid}: `);
    await runCli(['down', '-c', config], { env });
  });

  it('a bad --port is bad usage', async () => {
    const run = await runCli(['serve', '-c', config, '--port', 'eighty'], { env });
    expect(run.code).toBe(2);
  });
});
