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
  /** The npm package that provides `program` (what `doctor` and `setup` name when it is missing). */
  npmPackage?: string;
  /** The config.yaml entry (the found program's full path replaces `program` in `command`). */
  entry: Record<string, unknown>;
  /**
   * Top-level fields of a tool call's raw input that this agent itself changes each time it issues the
   * same call (an id, a timestamp): left out when two calls are compared (domain/tool-call-identity.ts).
   * Only with evidence from the agent's code or traffic, and never a field that changes what runs.
   */
  volatileInputFields?: readonly string[];
}

/**
 * Each preset checked against the current package (name, program, flags, how it asks permission).
 * ACP agents ask permission through `session/request_permission` before tools, each as its own settings
 * say: Claude Code per its permission mode, Codex per its approval policy (codex-acp's modes), Gemini CLI
 * and Qwen Code for edits and shell commands by default, OpenCode only where its opencode.json says
 * `ask` (its default allows everything).
 */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    program: 'claude-agent-acp',
    name: 'claude',
    product: 'Claude Code (ACP adapter)',
    // The former @zed-industries/claude-code-acp (program claude-code-acp) is deprecated.
    npmPackage: '@agentclientprotocol/claude-agent-acp',
    entry: {
      kind: 'acp',
      command: ['claude-agent-acp'],
      description: 'Claude Code over ACP: streams, asks permission before tools.',
    },
  },
  {
    program: 'codex-acp',
    name: 'codex',
    product: 'Codex (ACP adapter)',
    npmPackage: '@zed-industries/codex-acp',
    entry: { kind: 'acp', command: ['codex-acp'], description: 'OpenAI Codex over ACP.' },
    // Its raw input is Codex's ExecApprovalRequestEvent (codex-rs protocol, approvals.rs), whose `call_id`
    // ("tool call id that owns this approval"), `turn_id` ("turn id that owns this approval") and
    // `started_at_ms` ("when approval started") are new on every issue: codex-acp 0.16.0 in the agents lane
    // re-issued an approved `touch` as call_2 with a new turn_id and started_at_ms, all else equal.
    volatileInputFields: ['call_id', 'turn_id', 'started_at_ms'],
  },
  {
    program: 'gemini',
    name: 'gemini',
    product: 'Gemini CLI (ACP mode)',
    npmPackage: '@google/gemini-cli',
    entry: {
      kind: 'acp',
      // `--experimental-acp` is deprecated since `--acp` exists.
      command: ['gemini', '--acp'],
      // Gemini CLI 0.61 fails to write a new file when the client serves fs/read_text_file; without it,
      // it reads files itself (and still writes through fs/write_text_file).
      fs_read: false,
      description: 'Gemini CLI over ACP.',
    },
  },
  {
    program: 'opencode',
    name: 'opencode',
    product: 'OpenCode (ACP mode)',
    npmPackage: 'opencode-ai',
    entry: {
      kind: 'acp',
      command: ['opencode', 'acp'],
      description:
        'OpenCode over ACP. It asks permission only where its opencode.json says "ask" (e.g. permission: {bash: ask, edit: ask}); its default allows every tool.',
    },
  },
  {
    program: 'qwen',
    name: 'qwen',
    product: 'Qwen Code (ACP mode)',
    npmPackage: '@qwen-code/qwen-code',
    entry: { kind: 'acp', command: ['qwen', '--acp'], description: 'Qwen Code over ACP.' },
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
    npmPackage: '@anthropic-ai/claude-code',
    entry: { kind: 'subprocess_cli', command: ['claude'], prompt_via: 'arg', prompt_flag: ['-p'], timeout_s: 900 },
  },
  {
    program: 'codex',
    name: 'codex_cli',
    product: 'Codex CLI (one-shot `codex exec`)',
    npmPackage: '@openai/codex',
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

/** The npm package that provides `program` (a known agent's), for "install it with …" hints. */
export function npmPackageOf(program: string): string | undefined {
  const name = programName(program);
  return KNOWN_AGENTS.find((k) => k.program === name)?.npmPackage;
}

/**
 * The raw-input fields the known agent an ACP command runs changes between two issues of one call (none
 * for a command contactor does not know: every field then counts).
 */
export function volatileInputFieldsOf(agent: AgentConfig): readonly string[] {
  if (agent.kind !== 'acp') return [];
  const program = programName(agent.command[launchedProgramIndex(agent.command)] ?? '');
  return KNOWN_AGENTS.find((k) => k.program === program && k.entry.kind === 'acp')?.volatileInputFields ?? [];
}

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

/** Where in `command` the program it really runs is, past launchers (`npx -y codex-acp` → 2). */
function launchedProgramIndex(command: readonly string[]): number {
  let i = 0;
  while (i < command.length - 1 && LAUNCHERS.has(programName(command[i]!))) {
    i += 1;
    while (i < command.length - 1 && (command[i]!.startsWith('-') || LAUNCHER_WORDS.has(command[i]!))) i += 1;
  }
  return i;
}

function isKnownAgentCommand(command: readonly string[]): boolean {
  const programs = new Set(KNOWN_AGENTS.map((k) => k.program));
  return programs.has(programName(command[launchedProgramIndex(command)] ?? ''));
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
