/**
 * `doctor` flags agents that pass the schema but cannot run: a `${VAR}` in an agent's `env` whose variable
 * is unset, a `cwd` that does not exist, a missing program (a known agent's with its npm package), an
 * `api_key_env` naming an unset variable; `--agents` also probes http_api agents over the network. Each
 * failure says what to change, and doctor exits 2 (1 means "a task failed").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, closedPort, runCli } from './run-cli.js';

let dir: string;
let env: Record<string, string>;
let config: string;
let missingDir: string;
let apiPort: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-doctor-agents-'));
  env = cleanEnv(dir);
  missingDir = path.join(dir, 'no-such-folder');
  apiPort = await closedPort();
  const node = JSON.stringify(process.execPath);
  config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `port: ${await closedPort()}`,
      `data_dir: ${path.join(dir, 'data')}`,
      'agents:',
      '  keyed:',
      '    kind: subprocess_cli',
      `    command: [${node}, -e, "1"]`,
      '    env:',
      '      KEY: ${MOCK_KEY}',
      '  lost:',
      '    kind: subprocess_cli',
      `    command: [${node}, -e, "1"]`,
      `    cwd: ${missingDir}`,
      '  gem:',
      '    kind: acp',
      '    command: [gemini, --acp]',
      '  api:',
      '    kind: http_api',
      `    base_url: http://127.0.0.1:${apiPort}/v1`,
      '    model: m',
      '    api_key_env: MOCK_API_KEY',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('doctor: agents that cannot run', () => {
  it('names each problem with what to change, and exits 2', async () => {
    const run = await runCli(['doctor', '-c', config], { env: { ...env, PATH: path.join(dir, 'empty-bin') } });
    expect(run.stdout).toContain(
      `✗ config: ${config}: the bridge will not load it while MOCK_KEY is not set (the agents below say where)`,
    );
    expect(run.stdout).toContain(
      `✗ agent keyed: ${config}:8: agents.keyed.env.KEY uses \${MOCK_KEY}, which is not set`,
    );
    expect(run.stdout).toContain('fix: set MOCK_KEY in the environment the bridge starts from');
    expect(run.stdout).toContain(`✗ agent lost: its cwd ${missingDir} does not exist`);
    expect(run.stdout).toContain(
      `fix: create the folder (\`mkdir -p ${missingDir}\`), or fix \`cwd:\` in config.yaml (agents.lost.cwd)`,
    );
    expect(run.stdout).toContain('✗ agent gem: gemini not found on PATH');
    expect(run.stdout).toContain('`npm install -g @google/gemini-cli`');
    expect(run.stdout).toContain('✗ agent api: api_key_env: MOCK_API_KEY is not set, so every task fails');
    // Without --agents, http_api agents are not asked over the network.
    expect(run.stdout).not.toContain('probe api');
    expect(run.code).toBe(2);
  });

  it('with the variables set and the folder there, those agents pass', async () => {
    const run = await runCli(['doctor', '-c', config, '--json'], {
      env: { ...env, MOCK_KEY: 'k', MOCK_API_KEY: 'k' },
    });
    const checks = run.json<{ checks: { name: string; status: string }[] }>().checks;
    expect(checks.filter((c) => c.name === 'agent keyed').map((c) => c.status)).toEqual(['ok']);
    expect(checks.filter((c) => c.name === 'agent api').map((c) => c.status)).toEqual(['skip']);
  });

  it('--agents also probes each http_api agent, and says why it failed', async () => {
    const run = await runCli(['doctor', '-c', config, '--agents'], { env: { ...env, MOCK_API_KEY: 'k' } });
    expect(run.stdout).toMatch(new RegExp(`✗ probe api: .*127\\.0\\.0\\.1:${apiPort}`));
    expect(run.code).toBe(2);
  });
});
