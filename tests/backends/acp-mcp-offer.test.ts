/**
 * Every ACP agent the bridge runs is offered its own `contactor mcp` in `session/new` and `session/load`
 * (docs/backends.md#contactor-mcp-in-every-session). The fake agent (real ACP over stdio) writes down the
 * `mcpServers` each request carried; the expected entries are written out in full.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { offeredMcpServers } from '../../main/backends/acp/mcp-offer.js';
import type { CliInstall } from '../../main/backends/process/contactor-cli.js';
import { Harness, makeTurn, RecordingReporter } from '../fixtures/acp/harness.js';

const h = new Harness();
afterEach(() => h.cleanup());

/** An npm install on Linux: the Node running the bridge and the package's launcher script. */
const NPM_INSTALL: CliInstall = {
  hostPlatform: 'linux',
  execPath: '/opt/node/bin/node',
  appExe: undefined,
  cliDir: undefined,
  packageRoot: '/opt/contactor',
  exists: (file) => file === '/opt/contactor/bin/contactor.js',
};

const TOKEN = 'agent-token-0123456789abcdefghijklmnopqrstuvw';

const AGENT_ENV = {
  PATH: process.env.PATH ?? '',
  CONTACTOR_AGENT: 'fake',
  CONTACTOR_URL: 'http://127.0.0.1:45678',
  CONTACTOR_TOKEN: TOKEN,
};

const OFFERED = [
  {
    name: 'contactor',
    command: '/opt/node/bin/node',
    args: ['/opt/contactor/bin/contactor.js', 'mcp'],
    env: [
      { name: 'CONTACTOR_URL', value: 'http://127.0.0.1:45678' },
      { name: 'CONTACTOR_TOKEN', value: TOKEN },
      { name: 'CONTACTOR_AGENT', value: 'fake' },
    ],
  },
];

function offered(log: string): { method: string; mcpServers: unknown }[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { method: string; mcpServers: unknown });
}

describe('contactor mcp offered to every ACP agent', () => {
  it('session/new carries the agent its own contactor mcp: the CLI of this install, its token and the bridge address', async () => {
    const log = path.join(h.tempDir(), 'mcp.jsonl');
    const backend = h.backend([`--log-mcp=${log}`], {}, { baseEnv: AGENT_ENV, cliInstall: NPM_INSTALL });
    expect(await backend.run(makeTurn('echo hi'), new RecordingReporter())).toEqual({ kind: 'completed' });
    expect(offered(log)).toEqual([{ method: 'session/new', mcpServers: OFFERED }]);
  });

  it('offer_mcp: false offers no server', async () => {
    const log = path.join(h.tempDir(), 'mcp.jsonl');
    const backend = h.backend(
      [`--log-mcp=${log}`],
      { offer_mcp: false },
      { baseEnv: AGENT_ENV, cliInstall: NPM_INSTALL },
    );
    expect(await backend.run(makeTurn('echo hi'), new RecordingReporter())).toEqual({ kind: 'completed' });
    expect(offered(log)).toEqual([{ method: 'session/new', mcpServers: [] }]);
  });

  it('session/load of an earlier process carries the same server', async () => {
    const sessions = h.tempDir();
    const log = path.join(h.tempDir(), 'mcp.jsonl');
    const args = [`--session-dir=${sessions}`, `--log-mcp=${log}`];
    const first = h.backend(args, {}, { baseEnv: AGENT_ENV, cliInstall: NPM_INSTALL });
    const before = new RecordingReporter();
    await first.run(makeTurn('echo first'), before);
    await first.close();

    const second = h.backend(args, {}, { baseEnv: AGENT_ENV, cliInstall: NPM_INSTALL });
    const after = new RecordingReporter();
    const turn = makeTurn('echo again', { reattach: before.facts.sessionId as string });
    expect(await second.run(turn, after)).toEqual({ kind: 'completed' });
    expect(after.facts.sessionLoaded).toBe(true);
    expect(offered(log)).toEqual([
      { method: 'session/new', mcpServers: OFFERED },
      { method: 'session/load', mcpServers: OFFERED },
    ]);
  });

  it('an agent that advertises http and sse MCP servers is still offered the one stdio entry', async () => {
    const log = path.join(h.tempDir(), 'mcp.jsonl');
    const backend = h.backend([`--log-mcp=${log}`, '--mcp-http'], {}, { baseEnv: AGENT_ENV, cliInstall: NPM_INSTALL });
    await backend.run(makeTurn('echo hi'), new RecordingReporter());
    expect(offered(log)).toEqual([{ method: 'session/new', mcpServers: OFFERED }]);
  });

  it('offers nothing when the agent has no bridge address (no bridge to reach)', async () => {
    const log = path.join(h.tempDir(), 'mcp.jsonl');
    const { CONTACTOR_URL: _url, ...withoutUrl } = AGENT_ENV;
    const backend = h.backend([`--log-mcp=${log}`], {}, { baseEnv: withoutUrl, cliInstall: NPM_INSTALL });
    await backend.run(makeTurn('echo hi'), new RecordingReporter());
    expect(offered(log)).toEqual([{ method: 'session/new', mcpServers: [] }]);
  });
});

describe('the entry for each place an agent runs', () => {
  const INSTALL = 'C:\\Users\\me\\AppData\\Local\\Programs\\contactor';
  const PACKAGED: CliInstall = {
    hostPlatform: 'win32',
    execPath: `${INSTALL}\\Contactor.exe`,
    appExe: `${INSTALL}\\Contactor.exe`,
    cliDir: `${INSTALL}\\resources\\cli`,
    packageRoot: `${INSTALL}\\resources\\app.asar`,
    exists: (file) => file === `${INSTALL}\\resources\\cli\\contactor.exe`,
  };
  const env = [
    { name: 'CONTACTOR_URL', value: 'http://127.0.0.1:45678' },
    { name: 'CONTACTOR_TOKEN', value: TOKEN },
    { name: 'CONTACTOR_AGENT', value: 'fake' },
  ];

  it('a Windows agent of the desktop app: the native launcher', () => {
    const offer = { enabled: true, platform: 'windows', distro: undefined, install: PACKAGED, env: AGENT_ENV } as const;
    expect(offeredMcpServers(offer)).toEqual([
      { name: 'contactor', command: `${INSTALL}\\resources\\cli\\contactor.exe`, args: ['mcp'], env },
    ]);
  });

  it('a WSL agent of the desktop app: the WSL wrapper as the distro sees it', () => {
    const offer = { enabled: true, platform: 'wsl', distro: 'Ubuntu', install: PACKAGED, env: AGENT_ENV } as const;
    expect(offeredMcpServers(offer)).toEqual([
      {
        name: 'contactor',
        command: '/mnt/c/Users/me/AppData/Local/Programs/contactor/resources/cli/contactor',
        args: ['mcp'],
        env,
      },
    ]);
  });

  it('a Windows agent of a bridge that is not on Windows: nothing it could run', () => {
    const offer = {
      enabled: true,
      platform: 'windows',
      distro: undefined,
      install: NPM_INSTALL,
      env: AGENT_ENV,
    } as const;
    expect(offeredMcpServers(offer)).toEqual([]);
  });
});
