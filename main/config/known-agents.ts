/**
 * The well-known agent products: the one place that names them (docs/architecture.md#folders). `scan` looks
 * for their programs and proposes each one's config.yaml entry; the config gives a `subprocess_cli` agent
 * whose program is one of them the decision contract by default (a plain command would echo it back).
 */
import path from 'node:path';
import type { AgentConfig } from '../schema/config.js';

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

/** Programs that only start another program (`pnpm dsh`, `npx -y claude`, `pnpm exec codex`). */
const LAUNCHERS = new Set(['npx', 'pnpx', 'bunx', 'pnpm', 'yarn', 'uvx', 'pipx']);
const LAUNCHER_WORDS = new Set(['exec', 'dlx', 'run', 'x']);

/** The program a command runs, without folder or Windows extension: `C:\\x\\claude.cmd` → `claude`. */
function programName(word: string): string {
  return path.win32
    .basename(word)
    .replace(/\.(exe|cmd|bat|ps1)$/i, '')
    .toLowerCase();
}

function isKnownAgentCommand(command: readonly string[]): boolean {
  const programs = new Set(KNOWN_AGENTS.map((k) => k.program));
  let i = 0;
  while (i < command.length - 1 && LAUNCHERS.has(programName(command[i]!))) {
    i += 1;
    while (i < command.length - 1 && (command[i]!.startsWith('-') || LAUNCHER_WORDS.has(command[i]!))) i += 1;
  }
  return programs.has(programName(command[i] ?? ''));
}

/**
 * Whether an agent gets the decision contract when its config does not say (`append_decision_contract`):
 * agents that read instructions (ACP, chat endpoints, known agent CLIs) do; any other command would only
 * echo it, and a remote A2A peer is asked by its own bridge.
 */
export function decisionContractDefault(agent: AgentConfig): boolean {
  switch (agent.kind) {
    case 'acp':
    case 'http_api':
      return true;
    case 'a2a':
      return false;
    case 'subprocess_cli':
      return isKnownAgentCommand(agent.command);
    default: {
      const never: never = agent;
      return never;
    }
  }
}
