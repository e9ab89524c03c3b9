/**
 * An external agent's token is one of the bridge's secrets once the bridge has verified it
 * (SECURITY.md#the-token): the attack is an agent that read an MCP client's token (from the client's config
 * file, say) and replies with it, on stdout and on stderr, to a task that client sent through `/mcp`. The
 * reply the client gets, the stored task, the audit log, the bridge log and the agent's own log hold no
 * 8-character piece of the token's MAC: every file the bridge wrote is searched, the database included.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../main/domain/redaction.js';
import { deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { nodeScriptAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { callTool, httpClient } from '../front-doors/mcp-helpers.js';

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

/** Prints the file it is given (where it "found" a token) on stdout and stderr, then ends its turn. */
const LEAKER = `
import { readFileSync } from 'node:fs';
const seen = readFileSync(process.argv[2], 'utf8').trim();
process.stderr.write('found a token: ' + seen + '\\n');
process.stdout.write('here is the token I found: ' + seen + '\\n');
`;

function pieces(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i += 1)
    if (text.includes(secret.slice(i, i + 8))) found.push(secret.slice(i, i + 8));
  return found;
}

describe("an external agent's token an agent echoes", () => {
  it('reaches no task, reply, audit line or log', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'leaker.mjs');
    const found = path.join(dir, 'found-token.txt');
    writeFileSync(script, LEAKER);
    tb = await startTestBridge({ dir, agents: { leaker: nodeScriptAgent(script, {}, [found]) } });
    const token = deriveExternalAgentToken(tb.token, 'claude-code');
    const mac = token.slice('ext.claude-code.'.length);
    writeFileSync(found, token);

    const mcp = await httpClient(tb, 'claude-code', token);
    let reply;
    try {
      reply = await callTool(mcp.client, 'send_task', { agent: 'leaker', brief: 'what did you find?' });
    } finally {
      await mcp.close();
    }
    expect(reply.isError).toBeUndefined();
    expect(reply.structured.state).toBe('completed');
    expect(reply.structured.reply).toContain(`here is the token I found: ${REDACTED}`);
    const stored = JSON.stringify(await tb.rpc('tasks/get', { id: reply.structured.taskId }));
    expect(stored).toContain(REDACTED);
    expect(pieces(JSON.stringify(reply), mac)).toEqual([]);
    expect(pieces(stored, mac)).toEqual([]);

    await tb.stop();
    const written = readdirSync(tb.dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
    expect(written.some((file) => path.basename(file).startsWith('audit'))).toBe(true);
    expect(written.some((file) => path.basename(file) === 'bridge.log')).toBe(true);
    const leaks = written.flatMap((file) => pieces(readFileSync(file, 'latin1'), mac).map((p) => `${file}: ${p}`));
    expect(leaks).toEqual([]);
  });
});
