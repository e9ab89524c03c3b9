/**
 * What the bridge offers an agent as an ACP client: `fs/read_text_file`, `fs/write_text_file` and
 * `terminal/*`, each only when the agent's config enables it. Capabilities advertised in `initialize`
 * and handlers registered here come from the same flags, so the bridge never claims what it does not
 * serve (an unregistered method answers -32601). Every path is confined to the session's workspace.
 */
import { methods, RequestError, type ClientApp, type ClientCapabilities } from '@agentclientprotocol/sdk';
import type { LaunchPlan } from './launch.js';
import type { AcpSession } from './session.js';

export interface CapabilityFlags {
  fs_read: boolean;
  fs_write: boolean;
  terminal: boolean;
}

export interface CapabilityHost {
  session(sessionId: string): AcpSession | undefined;
  /** How to start a terminal command for this agent (natively or inside its WSL distro). */
  terminalPlan(command: string[], agentCwd: string, hostCwd: string, env: Record<string, string>): LaunchPlan;
}

export function clientCapabilities(flags: CapabilityFlags): ClientCapabilities {
  return { fs: { readTextFile: flags.fs_read, writeTextFile: flags.fs_write }, terminal: flags.terminal };
}

/** The 1-based `line` and `limit` of `fs/read_text_file` applied to a file's text. */
export function sliceLines(text: string, line: number | null | undefined, limit: number | null | undefined): string {
  if (line == null && limit == null) return text;
  const lines = text.split('\n');
  const from = Math.max(0, (line ?? 1) - 1);
  return lines.slice(from, limit == null ? undefined : from + limit).join('\n');
}

export function registerClientCapabilities(app: ClientApp, flags: CapabilityFlags, host: CapabilityHost): ClientApp {
  const session = (sessionId: string): AcpSession => {
    const s = host.session(sessionId);
    if (!s) throw RequestError.sessionNotFound(sessionId);
    return s;
  };
  if (flags.fs_read) {
    app.onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      const text = await session(params.sessionId).workspace.readText(params.path);
      return { content: sliceLines(text, params.line, params.limit) };
    });
  }
  if (flags.fs_write) {
    app.onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await session(params.sessionId).workspace.writeText(params.path, params.content);
      return {};
    });
  }
  if (flags.terminal) registerTerminals(app, host, session);
  return app;
}

function registerTerminals(app: ClientApp, host: CapabilityHost, session: (id: string) => AcpSession): void {
  app
    .onRequest(methods.client.terminal.create, async ({ params }) => {
      const s = session(params.sessionId);
      const hostCwd = await s.workspace.existing(params.cwd ?? s.workspace.agentRoot);
      const agentCwd = s.workspace.toAgent(hostCwd);
      const extra = Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value]));
      const plan = host.terminalPlan([params.command, ...(params.args ?? [])], agentCwd, hostCwd, extra);
      return { terminalId: await s.terminals.create(plan, params.outputByteLimit ?? undefined) };
    })
    .onRequest(methods.client.terminal.output, ({ params }) =>
      session(params.sessionId).terminals.output(params.terminalId),
    )
    .onRequest(methods.client.terminal.waitForExit, ({ params }) =>
      session(params.sessionId).terminals.waitForExit(params.terminalId),
    )
    .onRequest(methods.client.terminal.kill, async ({ params }) => {
      await session(params.sessionId).terminals.kill(params.terminalId);
      return {};
    })
    .onRequest(methods.client.terminal.release, async ({ params }) => {
      await session(params.sessionId).terminals.release(params.terminalId);
      return {};
    });
}
