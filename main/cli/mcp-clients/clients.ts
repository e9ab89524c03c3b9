/**
 * The MCP clients `skill install` registers `contactor mcp` with, and `doctor` checks: where each keeps its
 * user-level MCP servers and in which shape (README.md#using-the-local-agents-from-any-mcp-client).
 *
 *   Claude Code  ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json)  "mcpServers": {name: {type: "stdio", command, args}}
 *   Codex        ~/.codex/config.toml (or $CODEX_HOME)               [mcp_servers.name] command, args
 *   Gemini CLI   ~/.gemini/settings.json                              "mcpServers": {name: {command, args}}
 *   Qwen Code    ~/.qwen/settings.json                                as Gemini CLI (its fork)
 *   OpenCode     ~/.config/opencode/opencode.json(c) (XDG)            "mcp": {name: {type: "local", command: [...], enabled}}
 *
 * A client counts as installed here when its own folder exists (it has run on this machine).
 */
import path from 'node:path';
import { findTomlServer, withTomlServer } from './codex-toml.js';
import { parseSettings, withMember } from './json-members.js';

export const MCP_CLIENTS = ['claude', 'codex', 'gemini', 'qwen', 'opencode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export const PRODUCT: Record<McpClient, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  opencode: 'OpenCode',
};

/** The server's name in every client's config. */
export const SERVER_NAME = 'contactor';

/** A command line: the program and its arguments (`mcp` last). */
export interface ServerCommand {
  command: string;
  args: string[];
}

export interface ClientFiles {
  /** The client's own folder: it exists once the client has run here. */
  home: string;
  /** The file holding its MCP servers (it may not exist yet). */
  config: string;
}

/**
 * Where `client` keeps its things under `home`. `exists` picks OpenCode's opencode.jsonc when that is the
 * file it has.
 */
export function clientFiles(
  client: McpClient,
  home: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  exists: (file: string) => boolean,
): ClientFiles {
  switch (client) {
    case 'claude': {
      const dir = env.CLAUDE_CONFIG_DIR || home;
      return { home: path.join(home, '.claude'), config: path.join(dir, '.claude.json') };
    }
    case 'codex': {
      const dir = env.CODEX_HOME || path.join(home, '.codex');
      return { home: dir, config: path.join(dir, 'config.toml') };
    }
    case 'gemini':
      return { home: path.join(home, '.gemini'), config: path.join(home, '.gemini', 'settings.json') };
    case 'qwen':
      return { home: path.join(home, '.qwen'), config: path.join(home, '.qwen', 'settings.json') };
    case 'opencode': {
      // OpenCode follows XDG on every platform, ~/.config by default (Windows too).
      const dir =
        platform !== 'win32' && env.XDG_CONFIG_HOME
          ? path.join(env.XDG_CONFIG_HOME, 'opencode')
          : path.join(home, '.config', 'opencode');
      const jsonc = path.join(dir, 'opencode.jsonc');
      return { home: dir, config: exists(jsonc) ? jsonc : path.join(dir, 'opencode.json') };
    }
    default: {
      const never: never = client;
      return never;
    }
  }
}

/** The command the file registers as `contactor` (undefined: not registered); throws on a file it cannot read. */
export function registeredCommand(
  client: McpClient,
  text: string,
  file: string,
): { registered: false } | { registered: true; command: string | undefined } {
  if (client === 'codex') {
    let server;
    try {
      server = findTomlServer(text, SERVER_NAME);
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
    }
    return server ? { registered: true, command: server.command } : { registered: false };
  }
  const settings = parseSettings(text, file);
  const servers = settings[client === 'opencode' ? 'mcp' : 'mcpServers'];
  if (servers === null || typeof servers !== 'object' || !(SERVER_NAME in servers)) return { registered: false };
  const entry = (servers as Record<string, unknown>)[SERVER_NAME] as Record<string, unknown> | null;
  const command = client === 'opencode' ? (entry?.command as unknown[] | undefined)?.[0] : entry?.command;
  return { registered: true, command: typeof command === 'string' ? command : undefined };
}

/** `text` with the `contactor` server added in the client's shape; the caller has checked it is not there. */
export function withServer(client: McpClient, text: string, server: ServerCommand): string {
  switch (client) {
    case 'codex':
      return withTomlServer(text, SERVER_NAME, server.command, server.args);
    case 'claude':
      return withMember(text, ['mcpServers'], SERVER_NAME, { type: 'stdio', ...server, env: {} });
    case 'gemini':
    case 'qwen':
      return withMember(text, ['mcpServers'], SERVER_NAME, server);
    case 'opencode':
      return withMember(text, ['mcp'], SERVER_NAME, {
        type: 'local',
        command: [server.command, ...server.args],
        enabled: true,
      });
    default: {
      const never: never = client;
      return never;
    }
  }
}
