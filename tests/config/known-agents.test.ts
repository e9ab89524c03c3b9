/** Which agents get the decision contract when their config does not say (docs/contract.md#pending-questions). */
import { describe, expect, it } from 'vitest';
import {
  decisionContractDefault,
  KNOWN_AGENTS,
  npmPackageOf,
  volatileInputFieldsOf,
} from '../../main/config/known-agents.js';
import { AcpAgentSchema, AgentConfigSchema } from '../../main/schema/config.js';

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

// The presets as the current packages are (checked with `npm view` and their sources): the program each
// package installs, its ACP flag, and the quirks the agents lane showed.
const preset = (program: string) => KNOWN_AGENTS.find((k) => k.program === program);

describe('known ACP agents', () => {
  it('Claude Code through @agentclientprotocol/claude-agent-acp, not the deprecated claude-code-acp', () => {
    expect(preset('claude-agent-acp')).toMatchObject({
      npmPackage: '@agentclientprotocol/claude-agent-acp',
      entry: { kind: 'acp', command: ['claude-agent-acp'] },
    });
    expect(preset('claude-code-acp')).toBeUndefined();
  });

  it('Gemini CLI with --acp (not the deprecated --experimental-acp), reading files itself', () => {
    expect(preset('gemini')).toMatchObject({
      npmPackage: '@google/gemini-cli',
      entry: { command: ['gemini', '--acp'], fs_read: false },
    });
  });

  it('OpenCode (`opencode acp`) and Qwen Code (`qwen --acp`) are known', () => {
    expect(preset('opencode')).toMatchObject({ npmPackage: 'opencode-ai', entry: { command: ['opencode', 'acp'] } });
    expect(preset('qwen')).toMatchObject({ npmPackage: '@qwen-code/qwen-code', entry: { command: ['qwen', '--acp'] } });
  });

  it('every ACP preset is a valid config entry', () => {
    for (const k of KNOWN_AGENTS.filter((a) => a.entry.kind === 'acp')) {
      expect(() => AcpAgentSchema.parse(k.entry), k.program).not.toThrow();
    }
  });

  it('names the npm package of a known program, whatever its folder or Windows extension', () => {
    expect(npmPackageOf('/usr/local/bin/codex-acp')).toBe('@zed-industries/codex-acp');
    expect(npmPackageOf('C:\\npm\\opencode.cmd')).toBe('opencode-ai');
    expect(npmPackageOf('no-such-agent')).toBeUndefined();
  });
});

describe('volatileInputFieldsOf (what an agent changes between two issues of one tool call)', () => {
  it("is Codex's call_id, turn_id and started_at_ms, however codex-acp is launched", () => {
    for (const command of [['codex-acp'], ['/opt/bin/codex-acp.exe'], ['npx', '-y', 'codex-acp']])
      expect(volatileInputFieldsOf(agent({ kind: 'acp', command })), command.join(' ')).toEqual([
        'call_id',
        'turn_id',
        'started_at_ms',
      ]);
  });

  it('is nothing for any other agent, and for a Codex that is not the ACP adapter', () => {
    for (const command of [['gemini', '--acp'], ['opencode', 'acp'], ['my-agent'], ['codex']])
      expect(volatileInputFieldsOf(agent({ kind: 'acp', command })), command.join(' ')).toEqual([]);
    expect(volatileInputFieldsOf(agent({ kind: 'subprocess_cli', command: ['codex-acp'] }))).toEqual([]);
  });
});
