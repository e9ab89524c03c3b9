/**
 * An MCP task is the bridge's task: after the bridge stops mid-task and starts again on the same data dir, a
 * client that connects anew reads the same task id, settled as the bridge settles every task a stop
 * interrupted (failed, retryable: docs/contract.md#mcp-tools).
 */
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { callTool, httpClient } from './mcp-helpers.js';

const started: TestBridge[] = [];
afterAll(async () => {
  for (const b of started) await b.cleanup();
});

describe('an MCP task across a bridge restart', () => {
  it('the reconnected client finds the same task id in the restarted bridge', async () => {
    const dir = tempDir();
    const first = await startTestBridge({ dir, agents: { slow: fakeAcpAgent() } });
    started.push(first);
    const mcp = await httpClient(first, 'keeper', deriveExternalAgentToken(first.token, 'keeper'));
    const created = await mcp.client.request(
      { method: 'tools/call', params: { name: 'send_task', arguments: { agent: 'slow', brief: 'stream' }, task: {} } },
      CreateTaskResultSchema,
    );
    const id = created.task.taskId;
    expect(created.task.status).toBe('working');
    await mcp.close();
    await first.stop();

    const second = await startTestBridge({ dir, dataDir: first.dataDir, agents: { slow: fakeAcpAgent() } });
    started.push(second);
    expect(second.token).toBe(first.token);
    const again = await httpClient(second, 'keeper', deriveExternalAgentToken(second.token, 'keeper'));
    try {
      const got = await again.client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
      expect(got).toMatchObject({ taskId: id, status: 'failed' });
      const seen = await callTool(again.client, 'get_task', { taskId: id });
      expect(seen.structured).toMatchObject({ taskId: id, state: 'failed', done: true });
    } finally {
      await again.close();
    }
  });
});
