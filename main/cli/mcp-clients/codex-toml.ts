/**
 * Codex's `[mcp_servers.<name>]` tables in its config.toml (openai/codex codex-rs/core/src/config: the
 * `mcp_servers` map, each with `command`, `args`, `env`), read and added line by line so every other line of
 * the file stays as it is: a new table appended at the end is valid TOML wherever the file left off. A TOML
 * library that keeps formatting (e.g. `@decimalturn/toml-patch`) could replace this; registration needs
 * only these two operations.
 */

/** How the file names a server, in each form TOML allows for it. */
export interface TomlServer {
  /** The server's `command`, when it is a plain string the lines show. */
  command: string | undefined;
}

const HEADER = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/;
const KEY_VALUE = /^\s*([A-Za-z0-9_\-."' ]+?)\s*=\s*(.*)$/;

/** The dotted key's parts, unquoted (`mcp_servers."contactor"` → ["mcp_servers", "contactor"]). */
function keyParts(key: string): string[] {
  return (key.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.\s]+/g) ?? []).map((part) =>
    part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part,
  );
}

/** A TOML basic or literal string at the start of `value`, else undefined. */
function tomlString(value: string): string | undefined {
  const basic = /^"((?:[^"\\]|\\.)*)"/.exec(value);
  if (basic) {
    try {
      return JSON.parse(`"${basic[1]}"`) as string;
    } catch {
      return undefined;
    }
  }
  return /^'([^']*)'/.exec(value)?.[1];
}

/** The server `name` as the file defines it, or undefined when it does not. */
export function findTomlServer(text: string, name: string): TomlServer | undefined {
  let table: string[] = [];
  let found: TomlServer | undefined;
  for (const line of text.split(/\r?\n/)) {
    const header = HEADER.exec(line);
    if (header && !line.trim().startsWith('[[')) {
      table = keyParts(header[1]!);
      if (table.length === 2 && table[0] === 'mcp_servers' && table[1] === name) found ??= { command: undefined };
      continue;
    }
    const pair = KEY_VALUE.exec(line);
    if (!pair || line.trim().startsWith('#')) continue;
    const key = [...table, ...keyParts(pair[1]!)];
    const value = pair[2]!;
    if (key[0] !== 'mcp_servers') continue;
    if (key.length === 1) {
      throw new Error(
        'it defines mcp_servers as one inline table; add contactor to it by hand (`contactor doctor` shows the entry)',
      );
    }
    if (key[1] !== name) continue;
    found ??= { command: undefined };
    if (key.length === 2) {
      // contactor = { command = "...", args = [...] } under [mcp_servers]
      const inline = /\bcommand\s*=\s*(.*)$/.exec(value);
      if (inline) found.command ??= tomlString(inline[1]!);
    } else if (key.length === 3 && key[2] === 'command') found.command ??= tomlString(value);
  }
  return found;
}

/** `text` with `[mcp_servers.<name>]` appended; the caller has checked that the file has no such server. */
export function withTomlServer(text: string, name: string, command: string, args: readonly string[]): string {
  const quote = (s: string): string => JSON.stringify(s); // a JSON string is a valid TOML basic string
  const key = /^[A-Za-z0-9_-]+$/.test(name) ? name : quote(name);
  const table = [`[mcp_servers.${key}]`, `command = ${quote(command)}`, `args = [${args.map(quote).join(', ')}]`];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const body = table.join(eol) + eol;
  if (text.trim() === '') return body;
  const ended = text.endsWith('\n') ? text : text + eol;
  return `${ended}${eol}${body}`;
}
