/**
 * The well-known agent products `scan` looks for and `skill install` serves: the one place in the CLI
 * that names them (ARCHITECTURE.md "config.ts"). Each proposes a config.yaml entry to start from.
 */

export interface KnownAgent {
  /** The program looked up on PATH. */
  program: string;
  /** The agent name proposed in config.yaml. */
  name: string;
  product: string;
  /** The config.yaml entry (the found program's full path replaces `program` in `command`). */
  entry: Record<string, unknown>;
}

export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    program: 'claude-code-acp',
    name: 'claude',
    product: 'Claude Code (ACP adapter)',
    entry: {
      kind: 'acp',
      command: ['claude-code-acp'],
      description: 'Claude Code over ACP: streams, asks permission before tools.',
    },
  },
  {
    program: 'codex-acp',
    name: 'codex',
    product: 'Codex (ACP adapter)',
    entry: { kind: 'acp', command: ['codex-acp'], description: 'OpenAI Codex over ACP.' },
  },
  {
    program: 'gemini',
    name: 'gemini',
    product: 'Gemini CLI (ACP mode)',
    entry: { kind: 'acp', command: ['gemini', '--experimental-acp'], description: 'Gemini CLI over ACP.' },
  },
  {
    program: 'dsh',
    name: 'dsh',
    product: 'dsh',
    entry: { kind: 'acp', command: ['dsh', '--profile', 'acp'], description: 'dsh over ACP.' },
  },
  {
    program: 'claude',
    name: 'claude_cli',
    product: 'Claude Code CLI (one-shot, no streaming or questions)',
    entry: { kind: 'subprocess_cli', command: ['claude'], prompt_via: 'arg', prompt_flag: ['-p'], timeout_s: 900 },
  },
  {
    program: 'codex',
    name: 'codex_cli',
    product: 'Codex CLI (one-shot `codex exec`)',
    entry: { kind: 'subprocess_cli', command: ['codex', 'exec'], prompt_via: 'arg', timeout_s: 900 },
  },
  {
    program: 'hermes',
    name: 'hermes',
    product: 'Hermes CLI (one-shot)',
    entry: { kind: 'subprocess_cli', command: ['hermes'], prompt_via: 'arg', prompt_flag: ['-z'], timeout_s: 300 },
  },
  {
    program: 'grok',
    name: 'grok',
    product: 'Grok CLI (one-shot)',
    entry: { kind: 'subprocess_cli', command: ['grok'], prompt_via: 'arg', prompt_flag: ['-p'], timeout_s: 600 },
  },
];

/** Where each agent product looks for skills (SKILL.md in a `contactor` folder). */
export const SKILL_TARGETS = ['claude', 'hermes', 'dsh', 'codex'] as const;
export type SkillTarget = (typeof SKILL_TARGETS)[number];

export function skillFolder(
  target: SkillTarget,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): string[] {
  switch (target) {
    case 'claude':
      return [home, '.claude', 'skills', 'contactor'];
    case 'dsh':
      return [home, '.dsh', 'skills', 'contactor'];
    case 'codex':
      return [home, '.codex', 'skills', 'contactor'];
    case 'hermes':
      return platform === 'win32' && env.LOCALAPPDATA
        ? [env.LOCALAPPDATA, 'hermes', 'skills', 'contactor']
        : [home, '.hermes', 'skills', 'contactor'];
    default: {
      const never: never = target;
      return never;
    }
  }
}
