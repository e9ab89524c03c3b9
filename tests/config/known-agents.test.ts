/** Which agents get the decision contract when their config does not say (docs/contract.md#pending-questions). */
import { describe, expect, it } from 'vitest';
import { decisionContractDefault } from '../../main/config/known-agents.js';
import { AgentConfigSchema } from '../../main/schema/config.js';

const agent = (raw: Record<string, unknown>) => AgentConfigSchema.parse(raw);

describe('decisionContractDefault', () => {
  it('is on for ACP agents and chat endpoints, off for remote A2A peers (their bridge adds its own)', () => {
    expect(decisionContractDefault(agent({ kind: 'acp', command: ['anything'] }))).toBe(true);
    expect(decisionContractDefault(agent({ kind: 'http_api', base_url: 'http://127.0.0.1:1/v1', model: 'm' }))).toBe(
      true,
    );
    expect(decisionContractDefault(agent({ kind: 'a2a', url: 'http://127.0.0.1:1' }))).toBe(false);
  });

  it('is on for a subprocess agent whose program is a known agent CLI, however it is launched', () => {
    for (const command of [
      ['claude', '-p'],
      ['/usr/local/bin/codex', 'exec'],
      ['C:\\Users\\me\\AppData\\Roaming\\npm\\hermes.cmd'],
      ['grok.exe'],
      ['npx', '-y', 'claude'],
      ['pnpm', 'exec', 'codex'],
      ['pnpm', 'dsh', '--profile', 'x'],
    ])
      expect(decisionContractDefault(agent({ kind: 'subprocess_cli', command })), command.join(' ')).toBe(true);
  });

  it('is off for any other command', () => {
    for (const command of [['tr', 'a-z', 'A-Z'], ['node', 'claude.mjs'], ['npx'], ['grep', 'claude'], ['cat']])
      expect(decisionContractDefault(agent({ kind: 'subprocess_cli', command })), command.join(' ')).toBe(false);
  });
});
