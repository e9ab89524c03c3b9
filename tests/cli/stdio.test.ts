/** `contactor stdio`: line-delimited JSON-RPC forwarded to the bridge, streams as notifications. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli } from './run-cli.js';

interface Line {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: { id: number; result: { kind: string; status?: { state: string } } };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});
afterAll(() => bridge?.cleanup());

describe('contactor stdio', () => {
  it('answers each request line, streams message/stream as stream/event notifications, then the final response', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'agents/list' },
      { jsonrpc: '2.0', id: 2, method: 'message/stream', params: { agent: 'echo', text: 'over the pipe' } },
      { jsonrpc: '2.0', id: 3, method: 'agent/discover' },
    ];
    const run = await runCli(['stdio'], {
      env: bridgeEnv(bridge),
      input: `${requests.map((r) => JSON.stringify(r)).join('\n')}\nnot json\n`,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);

    const byId = (id: number) => lines.find((l) => l.id === id && l.method === undefined);
    expect((byId(1)!.result!.agents as { name: string }[]).map((a) => a.name)).toEqual(['echo']);
    expect((byId(3)!.result!.agents as unknown[]).length).toBe(1);

    const events = lines.filter((l) => l.method === 'stream/event' && l.params?.id === 2);
    expect(events[0]!.params!.result.kind).toBe('task');
    expect(events.at(-1)!.params!.result.status!.state).toBe('completed');
    const final = lines.findIndex((l) => l.id === 2 && l.method === undefined);
    expect(final).toBeGreaterThan(lines.lastIndexOf(events.at(-1)!));
    expect(lines[final]!.result).toEqual(events.at(-1)!.params!.result);

    expect(lines.find((l) => l.id === null)!.error!.code).toBe(-32700);
  });

  it('passes bridge errors through unchanged', async () => {
    const run = await runCli(['stdio'], {
      env: bridgeEnv(bridge),
      input: `${JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'message/send', params: { agent: 'ghost', text: 'hi' } })}\n`,
    });
    const reply = JSON.parse(run.stdout.trim()) as Line;
    expect(reply.id).toBe('x');
    expect(reply.error!.code).toBe(-32060);
  });
});
