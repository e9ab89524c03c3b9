/**
 * Registering `contactor mcp` with the MCP clients installed here (`skill install`), and checking that
 * registration (`doctor`). A client's config file is the person's: it is read first and left alone when it
 * already names a `contactor` server (never registered twice, whatever it points at), written only after a
 * yes, copied to `<file>.contactor-backup` before the write, and changed by one inserted entry, the rest of
 * its text kept as it was (json-members.ts, codex-toml.ts).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveProgram } from '../scan/which.js';
import {
  clientFiles,
  MCP_CLIENTS,
  PRODUCT,
  registeredCommand,
  withServer,
  type McpClient,
  type ServerCommand,
} from './clients.js';

export type RegistrationStatus = 'registered' | 'already registered' | 'not installed' | 'declined' | 'failed';

export interface Registration {
  client: McpClient;
  file: string;
  status: RegistrationStatus;
  /** What went wrong (failed), or the backup made before the write (registered over an existing file). */
  detail?: string;
}

export interface RegisterInput {
  home: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** The clients to register with; those not installed here are skipped unless `named`. */
  clients: readonly McpClient[];
  named: boolean;
  server: ServerCommand;
  /** Asked once per client before its file is written; false leaves the file alone. */
  confirm: (client: McpClient, file: string) => Promise<boolean>;
}

export const BACKUP_SUFFIX = '.contactor-backup';

/**
 * The command a client should run: `contactor mcp` when `contactor` is on PATH (through `cmd /c` when it
 * is a batch file, which Windows programs cannot start directly), else this CLI by its absolute path.
 */
export function serverCommand(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  self: { execPath: string; entry: string },
): ServerCommand {
  const found = resolveProgram('contactor', env, platform);
  if (found && platform === 'win32' && /\.(cmd|bat)$/i.test(found)) {
    return { command: 'cmd', args: ['/c', 'contactor', 'mcp'] };
  }
  if (found) return { command: 'contactor', args: ['mcp'] };
  return { command: self.execPath, args: [self.entry, 'mcp'] };
}

export async function registerMcpServer(input: RegisterInput): Promise<Registration[]> {
  const results: Registration[] = [];
  for (const client of input.clients) {
    const files = clientFiles(client, input.home, input.env, input.platform, existsSync);
    const file = files.config;
    if (!input.named && !existsSync(files.home)) {
      results.push({ client, file, status: 'not installed' });
      continue;
    }
    try {
      const text = readIfThere(file);
      if (registeredCommand(client, text, file).registered) {
        results.push({ client, file, status: 'already registered' });
        continue;
      }
      if (!(await input.confirm(client, file))) {
        results.push({ client, file, status: 'declined' });
        continue;
      }
      const next = withServer(client, text, input.server);
      if (!registeredCommand(client, next, file).registered) throw new Error('the edit did not take; nothing written');
      mkdirSync(path.dirname(file), { recursive: true });
      const backup = existsSync(file) ? `${file}${BACKUP_SUFFIX}` : undefined;
      if (backup) copyFileSync(file, backup);
      writeFileSync(file, next);
      results.push({ client, file, status: 'registered', ...(backup ? { detail: `backup: ${backup}` } : {}) });
    } catch (err) {
      results.push({ client, file, status: 'failed', detail: describe(err) });
    }
  }
  return results;
}

export interface McpCheck {
  client: McpClient;
  name: string;
  status: 'ok' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

/** One check per MCP client installed here: registered and runnable, not registered, or pointing nowhere. */
export function mcpRegistrationChecks(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): McpCheck[] {
  const checks: McpCheck[] = [];
  for (const client of MCP_CLIENTS) {
    const files = clientFiles(client, home, env, platform, existsSync);
    if (!existsSync(files.home)) continue;
    const name = `mcp ${client}`;
    const register = `\`contactor skill install\` registers it (asks first; --yes to skip the question)`;
    let found;
    try {
      found = registeredCommand(client, readIfThere(files.config), files.config);
    } catch (err) {
      checks.push({ client, name, status: 'fail', detail: describe(err), fix: `fix ${files.config}` });
      continue;
    }
    if (!found.registered) {
      checks.push({
        client,
        name,
        status: 'skip',
        // A skipped check shows no fix line: the way to register is in its detail.
        detail: `${PRODUCT[client]} does not have contactor among its MCP servers (${files.config}); ${register}`,
      });
      continue;
    }
    const command = found.command;
    if (command !== undefined && resolveProgram(command, env, platform) === undefined) {
      checks.push({
        client,
        name,
        status: 'fail',
        detail: `${PRODUCT[client]} has contactor registered in ${files.config}, but its command ${command} is not found`,
        fix: `remove the contactor entry from ${files.config}, then ${register}`,
      });
      continue;
    }
    checks.push({ client, name, status: 'ok', detail: `registered in ${files.config}` });
  }
  return checks;
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
