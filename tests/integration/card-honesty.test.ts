/**
 * Cards say what each agent can really ask, as built from its config (transport/cards.ts `describeTraits`
 * from each backend's traits): only ACP agents ask for tool permissions; a CLI or HTTP API agent asks
 * for decisions only with the decision contract on; without it, it never asks — and no card says two
 * contradicting things about it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge;
const api = { kind: 'http_api', base_url: 'http://127.0.0.1:1/v1', model: 'm' };
beforeAll(async () => {
  tb = await startTestBridge({
    agents: {
      acp: fakeAcpAgent(),
      cli_asks: echoAgent(),
      cli_plain: echoAgent({ append_decision_contract: false }),
      api_asks: api,
      api_plain: { ...api, append_decision_contract: false },
    },
    isolatedEnv: true,
  });
});
afterAll(() => tb?.cleanup());

async function description(agent: string): Promise<string> {
  const res = await fetch(`${tb.url}/agents/${agent}/.well-known/agent-card.json`, {
    headers: { 'A2A-Version': '1.0' },
  });
  return ((await res.json()) as { description: string }).description;
}

describe('card descriptions match what the agent can ask', () => {
  it('no card both offers tool permissions and denies them, or says "never asks" and then how it asks', async () => {
    for (const agent of ['acp', 'cli_asks', 'cli_plain', 'api_asks', 'api_plain']) {
      const words = await description(agent);
      if (/ask for permission/i.test(words)) expect(words, agent).not.toMatch(/no tool permission|never for a tool/i);
      if (/never asks/i.test(words)) expect(words, agent).not.toMatch(/ask for|asks only|can only ask/i);
    }
  });

  it('says per kind what it may ask', async () => {
    expect(await description('acp')).toContain('Can ask for permission to use a tool, or for a decision');
    expect(await description('cli_asks')).toContain(
      'Can ask for a decision at the end of a run, never for a tool permission',
    );
    expect(await description('api_asks')).toContain('Can ask for a decision, never for a tool permission');
    for (const agent of ['cli_plain', 'api_plain']) {
      const words = await description(agent);
      expect(words, agent).toContain('Never asks: it runs each turn to the end on its own');
      expect(words, agent).not.toMatch(/decision/i);
    }
  });
});
