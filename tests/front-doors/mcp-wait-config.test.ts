/**
 * send_task's bounded wait is `mcp_wait_seconds` in config.yaml (docs/contract.md#mcp-tools): at `/mcp`,
 * following a config reload, and in `contactor mcp` on stdio, where `--wait` wins. The agent streams until
 * canceled, so every send returns at the bound, and its `next` names the bound in force.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { callTool, httpClient, stdioClient, type Connected } from './mcp-helpers.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { slow: fakeAcpAgent() }, config: { mcp_wait_seconds: 1 } });
});
afterAll(() => bridge?.cleanup());

async function sendAndCancel(mcp: Connected): Promise<string> {
  const reply = await callTool(mcp.client, 'send_task', { agent: 'slow', brief: 'stream' });
  expect(reply.isError).toBeUndefined();
  expect(reply.structured).toMatchObject({ state: 'working', done: false });
  await callTool(mcp.client, 'cancel_task', { taskId: reply.structured.taskId });
  return reply.structured.next as string;
}

describe('mcp_wait_seconds', () => {
  it('bounds /mcp, and a config reload changes it', async () => {
    const mcp = await httpClient(bridge, 'x', deriveExternalAgentToken(bridge.token, 'waiter'));
    try {
      expect(await sendAndCancel(mcp)).toContain('still running after the 1 s wait');
      const config = parse(readFileSync(bridge.configPath, 'utf8')) as Record<string, unknown>;
      writeFileSync(bridge.configPath, stringify({ ...config, mcp_wait_seconds: 2 }));
      const reloaded = bridge.bridge.reloadConfig();
      expect(reloaded.error).toBeUndefined();
      expect(reloaded.restartNeeded).toEqual([]);
      expect(await sendAndCancel(mcp)).toContain('still running after the 2 s wait');
    } finally {
      await mcp.close();
      const config = parse(readFileSync(bridge.configPath, 'utf8')) as Record<string, unknown>;
      writeFileSync(bridge.configPath, stringify({ ...config, mcp_wait_seconds: 1 }));
      bridge.bridge.reloadConfig();
    }
  });

  it('bounds contactor mcp on stdio, from the same config.yaml', async () => {
    const mcp = await stdioClient(bridge, 'claude-code', { env: { CONTACTOR_CONFIG: bridge.configPath } });
    try {
      expect(await sendAndCancel(mcp)).toContain('still running after the 1 s wait');
    } finally {
      await mcp.close();
    }
  });

  it('--wait wins over the config on stdio', async () => {
    const mcp = await stdioClient(bridge, 'claude-code', {
      args: ['--wait', '2'],
      env: { CONTACTOR_CONFIG: bridge.configPath },
    });
    try {
      expect(await sendAndCancel(mcp)).toContain('still running after the 2 s wait');
    } finally {
      await mcp.close();
    }
  });
});
