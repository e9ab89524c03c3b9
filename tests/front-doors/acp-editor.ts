/**
 * An editor, as Zed or JetBrains is one: starts the real `contactor acp` (bin/contactor.js, a child process)
 * and speaks ACP to it with the SDK's client side, recording every session/update in arrival order and
 * answering permission requests with what the test decides.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { CLI } from '../cli/run-cli.js';

export type PermissionAnswer = (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;

export interface Editor {
  child: ChildProcess;
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  /** How the next permission requests are answered (default: the first option). */
  onPermission: PermissionAnswer;
  stderr(): string;
  initialize(): Promise<acp.InitializeResponse>;
  newSession(): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<acp.PromptResponse>;
  /** The updates of one session, from index `from` on. */
  updatesOf(sessionId: string, from?: number): acp.SessionUpdate[];
  close(): Promise<void>;
}

export function startEditor(args: string[], env: Record<string, string>, name = 'Zed'): Editor {
  const child = spawn(process.execPath, [CLI, 'acp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const editor: Editor = {
    child,
    updates,
    permissions,
    onPermission: async (request) => ({ outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } }),
    stderr: () => stderr,
    agent: undefined as unknown as acp.ClientContext,
    initialize: () =>
      editor.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientInfo: { name, version: '1.0.0' },
        clientCapabilities: {},
      }),
    newSession: () => editor.agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] }),
    prompt: (sessionId, prompt) =>
      editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt,
      }),
    updatesOf: (sessionId, from = 0) =>
      updates
        .slice(from)
        .filter((n) => n.sessionId === sessionId)
        .map((n) => n.update),
    async close() {
      child.stdin!.end();
      child.kill('SIGTERM');
      await exited;
    },
  };
  const connection = acp
    .client({ name })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return editor.onPermission(params);
    })
    .connect(
      acp.ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
    );
  editor.agent = connection.agent;
  return editor;
}

/** The text of the agent message chunks among `updates`, joined. */
export function replyText(updates: readonly acp.SessionUpdate[]): string {
  return updates
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('');
}
