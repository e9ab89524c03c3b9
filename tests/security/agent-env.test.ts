/**
 * Agents once inherited proxy variables with credentials and every XDG_* variable. Now the
 * credentials are stripped (unless pass_proxy_credentials) with a warning at load, only the XDG base
 * dirs pass, and prompt_via: arg is warned about (the prompt shows in `ps`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filterAgentEnv, withoutCredentials } from '../../main/config/agent-env-filter.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { CLI_FIXTURES, nodeScriptAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';

describe('filterAgentEnv', () => {
  it('strips user:password@ from proxy variables and keeps the rest', () => {
    expect(withoutCredentials('http://user:pa%40ss@proxy.corp:8080')).toBe('http://proxy.corp:8080');
    expect(withoutCredentials('user:pass@proxy:3128')).toBe('proxy:3128');
    expect(withoutCredentials('http://proxy:3128/')).toBe('http://proxy:3128/');
    const { env, strippedProxyCredentials } = filterAgentEnv(
      { HTTPS_PROXY: 'http://u:p@proxy:1', http_proxy: 'http://proxy:2', NO_PROXY: 'localhost', PATH: '/bin' },
      { passProxyCredentials: false },
    );
    expect(env).toEqual({
      HTTPS_PROXY: 'http://proxy:1',
      http_proxy: 'http://proxy:2',
      NO_PROXY: 'localhost',
      PATH: '/bin',
    });
    expect(strippedProxyCredentials).toEqual(['HTTPS_PROXY']);
    expect(filterAgentEnv({ HTTPS_PROXY: 'http://u:p@proxy:1' }, { passProxyCredentials: true }).env.HTTPS_PROXY).toBe(
      'http://u:p@proxy:1',
    );
  });
});

describe('on a real bridge', () => {
  let bridge: Bridge | undefined;
  afterEach(async () => {
    await bridge?.stop();
    bridge = undefined;
  });

  it('gives agents no proxy password and no XDG session details, and warns once at load', async () => {
    const dir = tempDir();
    const agent = (extra: Record<string, unknown>) =>
      nodeScriptAgent(path.join(CLI_FIXTURES, 'env-dump.mjs'), { append_decision_contract: false, ...extra }, [
        '--all',
      ]);
    const { configPath, dataDir } = writeTestConfig(dir, {
      agents: {
        plain: agent({}),
        trusted: agent({ pass_proxy_credentials: true }),
        argv: agent({ prompt_via: 'arg' }),
      },
    });
    bridge = await createBridge({
      configPath,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        HTTPS_PROXY: 'http://alice:hunter2@proxy.corp:8080',
        XDG_CONFIG_HOME: path.join(dir, '.config'),
        XDG_RUNTIME_DIR: '/run/user/1000',
        XDG_SESSION_ID: '42',
        XDG_SEAT: 'seat0',
      },
    });
    await bridge.start();
    const send = async (agentName: string) => {
      const res = await fetch(`${bridge!.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bridge!.token}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { agent: agentName, text: 'x' },
        }),
      });
      const body = (await res.json()) as { result: { artifacts: { parts: { text: string }[] }[] } };
      return JSON.parse(body.result.artifacts[0]!.parts[0]!.text) as Record<string, string>;
    };
    const plain = await send('plain');
    expect(plain.HTTPS_PROXY).toBe('http://proxy.corp:8080');
    expect(plain.XDG_CONFIG_HOME).toBe(path.join(dir, '.config'));
    expect(plain.XDG_RUNTIME_DIR).toBe('/run/user/1000');
    expect(plain.XDG_SESSION_ID).toBeUndefined();
    expect(plain.XDG_SEAT).toBeUndefined();
    expect((await send('trusted')).HTTPS_PROXY).toBe('http://alice:hunter2@proxy.corp:8080');
    const log = readFileSync(path.join(dataDir, 'logs', 'bridge.log'), 'utf8');
    expect(log.match(/proxy credentials \(user:password@\) were removed/g)).toHaveLength(1);
    expect(log).toContain('prompt_via: arg');
    expect(log).not.toContain('hunter2');
  });
});
