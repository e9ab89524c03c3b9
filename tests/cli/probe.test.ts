/**
 * `contactor probe <agent>` and `doctor`'s new checks, run as the real CLI against real agent processes,
 * HTTP servers on 127.0.0.1 port 0, and a stand-in wsl.exe on PATH.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { cleanEnv, runCli } from './run-cli.js';
import { FAKE_ACP_AGENT, makeStandIns, PROBE_AGENT, type StandIns } from './stand-ins.js';

let dir: string;
let config: string;
let env: Record<string, string>;
let server: Server;
let standIns: StandIns;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-probe-cli-'));
  standIns = makeStandIns();
  server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/open/v1/models') return send(200, { data: [{ id: 'm' }] });
    if (req.url === '/locked/v1/models')
      return send(req.headers.authorization === 'Bearer right' ? 200 : 401, { error: 'bad key' });
    if (req.url === '/peer/.well-known/agent-card.json')
      return send(200, {
        name: 'Remote Reviewer',
        protocolVersion: '0.3.0',
        url: 'http://x',
        capabilities: { streaming: true },
      });
    return send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  config = path.join(dir, 'config.yaml');
  const fakeWsl = { FAKE_WSL_DISTROS: 'Ubuntu,Debian', FAKE_WSL_ROOT: dir };
  writeFileSync(
    config,
    stringify({
      port: 0,
      data_dir: path.join(dir, 'data'),
      agents: {
        fake: { kind: 'acp', command: [process.execPath, FAKE_ACP_AGENT] },
        broken: { kind: 'acp', command: [process.execPath, FAKE_ACP_AGENT, '--exit-on-start'] },
        // The stand-in wsl.exe reads FAKE_*; agents get only their config's env beyond a safe allow-list.
        inwsl: {
          kind: 'acp',
          platform: 'wsl',
          distro: 'Ubuntu',
          command: [process.execPath, PROBE_AGENT],
          env: fakeWsl,
        },
        lostwsl: {
          kind: 'acp',
          platform: 'wsl',
          distro: 'Arch',
          command: [process.execPath, PROBE_AGENT],
          env: fakeWsl,
        },
        cli: { kind: 'subprocess_cli', command: [process.execPath, '-e', '0'] },
        ghost: { kind: 'subprocess_cli', command: ['no-such-cli-agent'] },
        api: { kind: 'http_api', base_url: `${base}/open/v1`, model: 'm' },
        locked: { kind: 'http_api', base_url: `${base}/locked/v1`, model: 'm', api_key_env: 'PROBE_TEST_KEY' },
        peer: { kind: 'a2a', url: `${base}/peer` },
      },
    }),
  );
  env = cleanEnv(dir);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  standIns.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('contactor probe', () => {
  it('prints what an ACP agent declares', async () => {
    const run = await runCli(['probe', 'fake', '-c', config], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ fake (acp): fake-agent 1.0.0');
    expect(run.stdout).toContain('  protocol:     ACP v1');
    expect(run.stdout).toContain('  login:        none declared');
    const json = await runCli(['probe', 'fake', '-c', config, '--json'], { env });
    expect(json.json()).toMatchObject({
      agent: 'fake',
      kind: 'acp',
      ok: true,
      declared: { protocolVersion: 1, agentInfo: { name: 'fake-agent' }, capabilities: { loadSession: false } },
    });
  });

  it('shows why an ACP agent could not be reached, with its stderr and a fix (exit 1)', async () => {
    const run = await runCli(['probe', 'broken', '-c', config], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('exited during initialize (exit code 2)');
    expect(run.stdout).toContain('stderr| fatal: fake agent has no config');
    expect(run.stdout).toMatch(/ {2}fix: run `.*--exit-on-start` in a terminal/);
  });

  it('starts a WSL agent through wsl.exe -d <distro>, as the bridge would', async () => {
    const wslEnv = { ...env, PATH: standIns.path('wsl.exe') };
    const run = await runCli(['probe', 'inwsl', '-c', config, '--json'], { env: wslEnv });
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      ok: true,
      via: 'wsl',
      launch: `wsl.exe -d Ubuntu --cd ~ --exec ${process.execPath} ${PROBE_AGENT}`,
      declared: { agentInfo: { name: 'probe-agent' } },
    });
    const missing = await runCli(['probe', 'lostwsl', '-c', config], { env: wslEnv });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('stderr| There is no distribution with the supplied name.');
  });

  it('a WSL agent without wsl.exe is a usage error that says where to probe it', async () => {
    const run = await runCli(['probe', 'inwsl', '-c', config], { env: { ...env, PATH: standIns.path() } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('agent inwsl runs on the wsl side; probe it from Windows');
  });

  it('other kinds: a CLI program found or not, an http_api /models, an a2a card', async () => {
    // Independent runs, side by side: one after another, seven CLI starts on a loaded machine took most of the
    // test's time. Each probe may wait as long as the test does.
    const probe = (name: string, extra: string[] = [], keyEnv: Record<string, string> = {}) =>
      runCli(['probe', name, '-c', config, '--timeout', String(TEST_TIMEOUT_MS / 1000), ...extra], {
        env: { ...env, ...keyEnv },
      });
    const [cli, ghost, api, unset, wrong, right, peer] = await Promise.all([
      probe('cli'),
      probe('ghost'),
      probe('api', ['--json']),
      probe('locked'),
      probe('locked', [], { PROBE_TEST_KEY: 'wrong' }),
      probe('locked', [], { PROBE_TEST_KEY: 'right' }),
      probe('peer'),
    ]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`✓ cli (subprocess_cli): ${process.execPath} → ${process.execPath}`);
    expect(ghost.code).toBe(1);
    expect(ghost.stdout).toContain('fix: install it, or put its full path in config.yaml (agents.ghost.command)');
    expect(api.json()).toMatchObject({ ok: true, kind: 'http_api', data: { status: 200 } });
    expect(unset.code).toBe(1);
    expect(unset.stdout).toContain('PROBE_TEST_KEY is not set in this environment');
    expect(wrong.stdout).toContain('was refused (HTTP 401)');
    expect(right.code).toBe(0);
    expect(peer.code).toBe(0);
    expect(peer.stdout).toContain('card of "Remote Reviewer" (A2A 0.3.0, streams)');
  });

  it('an unknown agent is exit 2 and lists the configured ones', async () => {
    const run = await runCli(['probe', 'nope', '-c', config], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'no agent named "nope" in the config; agents: fake, broken, inwsl, lostwsl, cli, ghost',
    );
  });
});

describe('doctor', () => {
  interface Report {
    checks: { name: string; status: string; detail: string; fix?: string; stderr?: string; data?: unknown }[];
  }

  it('probes each ACP agent and checks WSL (skipped on plain Linux)', async () => {
    const run = await runCli(['doctor', '-c', config, '--json'], { env: { ...env, PATH: standIns.path() } });
    const checks = run.json<Report>().checks;
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(checks.map((c) => c.name).slice(0, 6)).toEqual([
      'config',
      'agent fake',
      'acp fake',
      'agent broken',
      'acp broken',
      'agent inwsl',
    ]);
    expect(byName['acp fake']).toMatchObject({ status: 'ok', data: { agentInfo: { name: 'fake-agent' } } });
    expect(byName['acp fake']!.detail).toBe('ACP v1, fake-agent 1.0.0; no login declared; text prompts only');
    expect(byName['acp broken']).toMatchObject({ status: 'fail', stderr: 'fatal: fake agent has no config' });
    expect(byName['agent inwsl']).toMatchObject({
      status: 'skip',
      detail: 'runs on the wsl side; checked from Windows only',
    });
    expect(byName.wsl).toEqual({ name: 'wsl', status: 'skip', detail: 'skipped: not on Windows/WSL' });
    expect(run.code).toBe(2);

    const text = await runCli(['doctor', '-c', config], { env: { ...env, PATH: standIns.path() } });
    expect(text.stdout).toContain('✗ acp broken:');
    expect(text.stdout).toContain('    stderr| fatal: fake agent has no config');
    expect(text.stdout).toContain('- wsl: skipped: not on Windows/WSL');
  });

  it('with wsl.exe reachable: lists the distros and flags an agent whose distro is missing', async () => {
    const wslEnv = { ...env, PATH: standIns.path('wsl.exe'), FAKE_WSL_DISTROS: 'Debian,Alpine' };
    const run = await runCli(['doctor', '-c', config, '--json'], { env: wslEnv });
    const checks = run.json<Report>().checks;
    expect(checks.find((c) => c.name === 'wsl')).toMatchObject({ status: 'ok', detail: 'distros: Debian, Alpine' });
    expect(checks.find((c) => c.name === 'wsl distro for inwsl')).toMatchObject({
      status: 'fail',
      detail: 'distro "Ubuntu" is not installed (installed: Debian, Alpine)',
      fix: 'set agents.inwsl.distro to one of Debian, Alpine, or `wsl --install -d Ubuntu`',
    });
    expect(checks.find((c) => c.name === 'wsl distro for lostwsl')).toMatchObject({ status: 'fail' });
  });
});
