/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector `--cli`), a real MCP client, runs `contactor mcp`
 * on stdio: it lists the tools and calls send_task against the echo agent.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, CLI, workDir } from '../cli/run-cli.js';

const INSPECTOR = path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector');

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});
afterAll(() => bridge?.cleanup());

/** The Inspector with its own HOME and catalog, passing the bridge's address to `contactor mcp` with -e. */
function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = bridgeEnv(bridge);
  const serverEnv = ['CONTACTOR_URL', 'CONTACTOR_TOKEN', 'HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'].flatMap((k) =>
    env[k] ? ['-e', `${k}=${env[k]}`] : [],
  );
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', ...serverEnv, process.execPath, CLI, 'mcp', ...args],
      { env: { ...env, MCP_CATALOG_PATH: path.join(workDir(bridge), 'inspector-catalog.json') } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('the MCP Inspector CLI drives contactor mcp', () => {
  it('lists the tools', async () => {
    const run = await inspector(['--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(names).toEqual(['answer_question', 'cancel_task', 'get_task', 'list_agents', 'list_pending', 'send_task']);
  });

  it('calls send_task against echo', async () => {
    const run = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'send_task',
      '--tool-arg',
      'agent=echo',
      '--tool-arg',
      'brief=hello from the inspector',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { structuredContent: { state: string; reply: string } };
    expect(result.structuredContent).toMatchObject({ state: 'completed', reply: 'echo: hello from the inspector\n' });
  });
});
