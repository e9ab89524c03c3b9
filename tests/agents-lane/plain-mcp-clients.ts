/**
 * A lane agent run outside the bridge, as its plain CLI in one-prompt mode, with `contactor mcp` registered
 * the way its users register it (README.md#using-the-local-agents-from-any-mcp-client): its own config file
 * in its own HOME, the command a bare `contactor` found on PATH. `CONTACTOR_CONFIG` names the lane bridge's
 * config, as for a person whose config is not in the default place; nothing else tells it about the bridge.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/bridge.js';
import { AGENTS_BIN, CACHE } from './install.js';
import { laneAgent, type LaneAgentName } from './lane-agents.js';
import type { MockServer } from './mock-models.js';

interface PlainCli {
  program: string;
  args: (prompt: string) => string[];
  /** Writes the registration into the agent's own config, in the home laneAgent made. */
  register: (home: string) => void;
}

function editJson(file: string, edit: (json: Record<string, unknown>) => void): void {
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // No file yet: the registration is its first content.
  }
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
}

/** The agents whose plain CLI the lane installs (codex-acp has no `codex exec`). */
export const PLAIN_CLIS: Partial<Record<LaneAgentName, PlainCli>> = {
  // `gemini mcp add --trust -s user contactor contactor mcp`: trusted, so `-p` (which cannot ask) may call it.
  gemini: {
    program: path.join(AGENTS_BIN, 'gemini'),
    args: (prompt) => ['-p', prompt],
    register: (home) =>
      editJson(path.join(home, '.gemini', 'settings.json'), (s) => {
        s.mcpServers = { contactor: { command: 'contactor', args: ['mcp'], trust: true } };
        // A key user's auth type: `-p` takes GOOGLE_GEMINI_BASE_URL alone for a gateway it cannot validate.
        s.security = { ...(s.security as object), auth: { selectedType: 'gemini-api-key' } };
      }),
  },
  // OpenCode's `mcp` entry in the config file the lane gives it (OPENCODE_CONFIG), as the README writes it.
  // Its MCP client calls itself "opencode", the name of the bridge's OpenCode agent: it acts as
  // "opencode-client" (front-doors/mcp/mcp-identity.ts).
  opencode: {
    program: path.join(AGENTS_BIN, 'opencode'),
    args: (prompt) => ['run', prompt],
    register: (home) =>
      editJson(path.join(home, 'opencode.json'), (s) => {
        s.mcp = { contactor: { type: 'local', command: ['contactor', 'mcp'], enabled: true } };
      }),
  },
  // `claude mcp add -s user contactor -- contactor mcp`; `-p` runs only the tools --allowedTools names.
  claude: {
    program: path.join(CACHE, 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude'),
    args: (prompt) => ['-p', prompt, '--allowedTools', 'mcp__contactor__send_task,mcp__contactor__get_task'],
    register: (home) =>
      editJson(path.join(home, '.claude', '.claude.json'), (s) => {
        s.mcpServers = { contactor: { type: 'stdio', command: 'contactor', args: ['mcp'], env: {} } };
      }),
  },
};

export interface PlainRun {
  stdout: string;
  stderr: string;
  code: number | string | null;
  mock: MockServer;
}

/** Runs `prompt` through the agent's plain CLI in a fresh home of its own under `root`. */
export async function runPlainCli(
  name: LaneAgentName,
  root: string,
  workspace: string,
  configPath: string,
  prompt: string,
  timeoutMs: number,
): Promise<PlainRun> {
  const cli = PLAIN_CLIS[name];
  if (!cli) throw new Error(`${name} has no plain CLI in the lane`);
  const home = path.join(root, 'plain-home');
  const agent = await laneAgent(name, home, workspace);
  cli.register(home);
  // `contactor` on PATH, as an npm install puts it there.
  const binDir = path.join(home, 'bin');
  mkdirSync(binDir, { recursive: true });
  const shim = path.join(binDir, 'contactor');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(REPO_ROOT, 'bin', 'contactor.js')}" "$@"\n`);
  chmodSync(shim, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(agent.entry.env as Record<string, string>),
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
    CONTACTOR_CONFIG: configPath,
  };
  for (const v of ['CONTACTOR_URL', 'CONTACTOR_TOKEN', 'CONTACTOR_AGENT']) delete env[v];
  // No stdin: `opencode run` reads a piped stdin to its end before it starts, as a person's terminal never is.
  const child = spawn(cli.program, cli.args(prompt), { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { stdout, stderr, code: code ?? signal, mock: agent.mock };
}
