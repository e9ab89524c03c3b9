/**
 * The baseline for the ACP paths: the SDK's own client (`client()` app API) talking to an agent child
 * process directly, with no bridge in between. One session, prompts one after another.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { PROTOCOL_VERSION, client, methods, ndJsonStream } from '@agentclientprotocol/sdk';

export interface DirectAgent {
  /** The agent's process, for its CPU time. */
  pid: number | undefined;
  /** Sends one prompt and resolves with the reply text once the turn ends. */
  prompt(text: string, onChunk?: (text: string) => void): Promise<string>;
  close(): Promise<void>;
}

export async function openDirectAgent(command: string[]): Promise<DirectAgent> {
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
  let onText: ((text: string) => void) | undefined;
  const app = client({ name: 'bench-direct' }).onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') onText?.(u.content.text);
  });
  const conn = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );
  await conn.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await conn.agent.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
  return {
    pid: child.pid,
    async prompt(text, onChunk) {
      let reply = '';
      onText = (t) => {
        reply += t;
        onChunk?.(t);
      };
      await conn.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      onText = undefined;
      return reply;
    },
    async close() {
      child.stdin!.end();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
