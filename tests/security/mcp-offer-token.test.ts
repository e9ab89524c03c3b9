/**
 * The `contactor mcp` offered to each ACP agent carries that agent's own token in its env
 * (docs/backends.md#contactor-mcp-in-every-session). Through a real bridge: the offer names the bridge's
 * address and the token derived for that agent (never the install token); and an agent that quotes the
 * offer back (a refused session/new whose message holds the whole entry, env values included) gets it
 * into no task, audit line or log: every file the bridge wrote is searched for any 8-character piece.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../main/domain/redaction.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { fakeAcpAgent, REPO_ROOT, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

function pieces(text: string, token: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= token.length; i += 1)
    if (text.includes(token.slice(i, i + 8))) found.push(token.slice(i, i + 8));
  return found;
}

describe('the contactor mcp offer and the agent token', () => {
  it("offers the bridge's address and the agent's derived token, and no channel repeats the token an agent quotes back", async () => {
    const dir = tempDir();
    const log = path.join(dir, 'mcp.jsonl');
    tb = await startTestBridge({
      dir,
      agents: {
        quoter: fakeAcpAgent(['--refuse-new-echo', `--log-mcp=${log}`]),
      },
    });
    const agentToken = deriveAgentToken(tb.token, 'quoter');

    const sent = await tb.rpc('message/send', { agent: 'quoter', text: 'echo hi' });
    const task = sent.result ?? sent.error;
    const offered = JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!) as { mcpServers: unknown };
    expect(offered.mcpServers).toEqual([
      {
        name: 'contactor',
        command: process.execPath,
        args: [path.join(REPO_ROOT, 'bin', 'contactor.js'), 'mcp'],
        env: [
          { name: 'CONTACTOR_URL', value: tb.url },
          { name: 'CONTACTOR_TOKEN', value: agentToken },
          { name: 'CONTACTOR_AGENT', value: 'quoter' },
        ],
      },
    ]);
    // The refusal reached the task, with the token taken out of the agent's words.
    const seen = JSON.stringify(task);
    expect(seen).toContain('refused session/new: cannot start MCP servers');
    expect(seen).toContain(REDACTED);

    await tb.stop();
    const written = readdirSync(tb.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
    const leaks = written.flatMap((file) =>
      pieces(readFileSync(file, 'latin1'), agentToken).map((p) => `${file}: ${p}`),
    );
    expect(leaks).toEqual([]);
    expect(pieces(seen, agentToken)).toEqual([]);
  });
});
