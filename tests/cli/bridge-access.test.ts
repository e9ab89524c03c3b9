/**
 * Finding the bridge (CONTACTOR_URL, the discovery file) and the verbs that read it: status, agents,
 * card, token. Exit 5 when nothing answers, 6 when the token is wrong.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../main/cli/exit-codes.js';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, cleanEnv, closedPort, runCli, workDir } from './run-cli.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});
afterAll(() => bridge?.cleanup());

describe('finding the bridge', () => {
  it('reads url and token from the discovery file in --data-dir (no flags, no env)', async () => {
    const run = await runCli(['agents', '--data-dir', bridge.dataDir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^AGENT\s+BACKEND/);
    expect(run.stdout).toMatch(/AGENT\s+BACKEND\s+REPLY\s+ASKS\s+INTERRUPTIBLE/);
    expect(run.stdout).toMatch(/echo\s+subprocess_cli\s+one piece\s+yes\s+yes/);
  });

  it('finds the data dir through -c (the config names data_dir)', async () => {
    const run = await runCli(['status', '-c', bridge.configPath, '--json']);
    expect(run.code).toBe(0);
    const doc = run.json<{ url: string; health: { status: string }; agents: unknown[] }>();
    expect(doc.url).toBe(bridge.url);
    expect(doc.health.status).toBe('ok');
    expect(doc.agents).toHaveLength(1);
  });

  it('exit 5 with how to start one when nothing answers; --json still prints one document', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await runCli(['agents'], {
      env: cleanEnv(workDir(bridge), { CONTACTOR_URL: url, CONTACTOR_TOKEN: 'x' }),
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`no bridge running at ${url}`);
    expect(run.stderr).toContain('contactor up');
    const json = await runCli(['send', 'echo', 'hi', '--json'], {
      env: cleanEnv(workDir(bridge), { CONTACTOR_URL: url }),
    });
    expect(json.code).toBe(5);
    expect(json.json<{ error: { exitCode: number } }>().error.exitCode).toBe(5);
  });

  it('exit 5 when there is no discovery file and nothing at the configured address', async () => {
    const port = await closedPort();
    const config = path.join(workDir(bridge), 'closed.yaml');
    writeFileSync(config, `port: ${port}\ndata_dir: ${path.join(workDir(bridge), 'empty')}\n`);
    const run = await runCli(['status', '-c', config]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`no bridge running at http://127.0.0.1:${port}`);
  });

  it('exit 6 with a wrong token', async () => {
    const run = await runCli(['agents'], { env: bridgeEnv(bridge, { CONTACTOR_TOKEN: 'wrong-token' }) });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('unauthorized');
  });
});

describe('a bridge that accepts message/stream and drops the stream before any event (it crashed)', () => {
  let server: Server;
  let url: string;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'contactor-stream-drop-'));
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': accepted\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(home, { recursive: true, force: true });
  });

  it('send exits 5 (bridge unreachable) with one clear line and one --json document', async () => {
    const env = cleanEnv(home, { CONTACTOR_URL: url, CONTACTOR_TOKEN: 't' });
    const run = await runCli(['send', 'worker', 'hello', '--json', '--message-id', 'm-1'], { env });
    expect(run.code).toBe(EXIT.unreachable);
    expect(run.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(run.json()).toMatchObject({ error: { exitCode: EXIT.unreachable } });
  });
});

describe('read-only verbs', () => {
  it('status prints the url and each agent', async () => {
    const run = await runCli(['status'], { env: bridgeEnv(bridge) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`running at ${bridge.url}`);
    expect(run.stdout).toContain('echo (subprocess_cli): idle');
  });

  it('card prints the traits; --json the card itself; an unknown agent is exit 2', async () => {
    const human = await runCli(['card', 'echo'], { env: bridgeEnv(bridge) });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('interruptible: true');
    expect(human.stdout).toContain('contentVerified: false');
    const json = await runCli(['card', 'echo', '--json'], { env: bridgeEnv(bridge) });
    expect(json.json<{ name: string }>().name).toBe('echo');
    const unknown = await runCli(['card', 'ghost'], { env: bridgeEnv(bridge) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('ghost');
  });

  it('the self-contained CommonJS build (for the desktop app) works the same', async () => {
    const run = await runCli(['send', 'echo', 'from the cjs build'], {
      env: bridgeEnv(bridge),
      entry: path.join(REPO_ROOT, 'out/cli/contactor.cjs'),
    });
    expect(run.stdout).toBe('echo: from the cjs build\n');
    expect(run.code).toBe(0);
  });

  it('token prints the token from the discovery file', async () => {
    const run = await runCli(['token', '--data-dir', bridge.dataDir]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(bridge.token);
  });

  it('bad usage: an unknown verb or a missing argument is exit 2; --help documents the exit codes', async () => {
    expect((await runCli(['frobnicate'])).code).toBe(2);
    expect((await runCli(['send'])).code).toBe(2);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(help.stdout).toMatch(new RegExp(`^  ${code}  `, 'm'));
  });
});

describe('an explicit config that does not exist', () => {
  it('is a usage error naming the path, not a silent fall-back to the default bridge', async () => {
    const run = await runCli(['-c', '/nonexistent/contactor.yaml', 'agents']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no config file at ${path.resolve('/nonexistent/contactor.yaml')}`);
  });
});
