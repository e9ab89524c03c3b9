/**
 * Mock model servers on 127.0.0.1, one per API the lane's agents speak, each streaming what
 * mock-script.ts decides. Only the parts of each API the agents use are served; every request is kept
 * (`requests`) so a failing scenario can show what the agent asked.
 *
 * - OpenAI Responses API (Codex). codex-rs reads a provider's `base_url` from `model_providers.<id>` in
 *   $CODEX_HOME/config.toml (openai/codex codex-rs/core/src/model_provider_info.rs, `ModelProviderInfo`,
 *   `wire_api = "responses"`) and POSTs `<base_url>/responses`, reading the SSE events
 *   (codex-rs/core/src/client.rs `process_sse`: response.output_text.delta, response.output_item.done,
 *   response.completed).
 * - Gemini API (Gemini CLI). packages/core/src/core/contentGenerator.ts (google-gemini/gemini-cli) takes
 *   `GOOGLE_GEMINI_BASE_URL` as the HTTP base URL (the "gateway" auth type when set; `GEMINI_API_KEY` is
 *   the key), and @google/genai POSTs `<base>/v1beta/models/<model>:streamGenerateContent?alt=sse`.
 * - Chat Completions (OpenCode, Qwen Code). packages/opencode/src/provider/provider.ts (sst/opencode) loads the npm
 *   package a provider names in opencode.json (`@ai-sdk/openai-compatible`) with its `options.baseURL`,
 *   which POSTs `<baseURL>/chat/completions` with `stream: true`; Qwen Code's "openai" auth type POSTs the
 *   same to `OPENAI_BASE_URL` with the OpenAI SDK.
 * - Anthropic Messages API (Claude Code): mock-anthropic.ts.
 */
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contactorToolName, decide, pickTool, type Reply, type Said } from './mock-script.js';

export interface MockServer {
  url: string;
  requests: { path: string; body: unknown }[];
  /** The tool names each model request offered, in order (what the agent told its model it can call). */
  toolsSeen: string[][];
  close(): Promise<void>;
}

export type Handler = (
  path: string,
  body: any, // eslint-disable-line @typescript-eslint/no-explicit-any
  res: ServerResponse,
  noteTools: (tools: string[]) => void,
) => Promise<void>;

export async function serve(handler: Handler): Promise<MockServer> {
  const requests: MockServer['requests'] = [];
  const toolsSeen: string[][] = [];
  const noteTools = (tools: string[]): void => {
    if (tools.length > 0) toolsSeen.push(tools);
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const path = req.url ?? '/';
      requests.push({ path, body });
      // LANE_DUMP_REQUESTS=<file>: every request an agent made, one JSON line each (to learn what it sends).
      if (process.env.LANE_DUMP_REQUESTS)
        appendFileSync(process.env.LANE_DUMP_REQUESTS, `${JSON.stringify({ path, body })}\n`);
      handler(path, body, res, noteTools).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: err.message } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolsSeen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function sse(res: ServerResponse): (data: unknown, event?: string) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (data, event) => {
    if (res.destroyed) return;
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
}

/**
 * Gates a test opens (`LANE: pieces <n> until <gate>`): the mock servers run in the test's process, so the
 * test releases a held piece by name, the moment it has seen what came before.
 */
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();

function gate(name: string): { opened: Promise<void>; open: () => void } {
  let found = gates.get(name);
  if (!found) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    found = { opened, open };
    gates.set(name, found);
  }
  return found;
}

export function openGate(name: string): void {
  gate(name).open();
}

/** Streams a text reply piece by piece; stops early when the agent hangs up (a cancel). */
export async function streamPieces(
  reply: Extract<Reply, { kind: 'text' }>,
  res: ServerResponse,
  send: (piece: string) => void,
) {
  for (const [i, piece] of reply.pieces.entries()) {
    if (reply.lastPieceAfter && i === reply.pieces.length - 1) {
      await Promise.race([gate(reply.lastPieceAfter).opened, once(res, 'close')]);
    }
    if (res.destroyed) return;
    send(piece);
    if (reply.pieceDelayMs) await sleep(reply.pieceDelayMs);
  }
}

export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c: { text?: string }) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
  return '';
}

// ───────────── OpenAI Responses API (Codex) ─────────────

export function responsesServer(): Promise<MockServer> {
  let n = 0;
  return serve(async (path, body, res, noteTools) => {
    if (!path.endsWith('/responses')) {
      res.writeHead(path.includes('/models') ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [], models: [] }));
      return;
    }
    const input: any[] = Array.isArray(body?.input) ? body.input : []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const last = input.at(-1);
    const said: Said = {
      userTexts: input.filter((i) => i?.role === 'user').map((i) => textOfContent(i.content)),
      toolResult:
        last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output'
          ? typeof last.output === 'string'
            ? last.output
            : JSON.stringify(last.output)
          : undefined,
      tools: codexToolNames(body?.tools ?? []),
    };
    noteTools(said.tools);
    const reply = decide(said);
    const id = `resp_${(n += 1)}`;
    const send = sse(res);
    send({ type: 'response.created', response: { id } }, 'response.created');
    if (reply.kind === 'text') {
      const all: string[] = [];
      // Codex streams deltas into the item `output_item.added` opened (without it, the text comes whole).
      const opened = { type: 'message', role: 'assistant', id: `msg_${n}`, content: [] };
      send({ type: 'response.output_item.added', item: opened }, 'response.output_item.added');
      await streamPieces(reply, res, (delta) => {
        all.push(delta);
        send({ type: 'response.output_text.delta', delta, item_id: `msg_${n}` }, 'response.output_text.delta');
      });
      const item = {
        type: 'message',
        role: 'assistant',
        id: `msg_${n}`,
        content: [{ type: 'output_text', text: all.join('') }],
      };
      send({ type: 'response.output_item.done', item }, 'response.output_item.done');
    } else {
      const item = codexToolCall(reply, said.tools, n);
      send({ type: 'response.output_item.done', item }, 'response.output_item.done');
    }
    send(
      {
        type: 'response.completed',
        response: {
          id,
          usage: {
            input_tokens: 10,
            output_tokens: 10,
            total_tokens: 20,
            input_tokens_details: null,
            output_tokens_details: null,
          },
        },
      },
      'response.completed',
    );
    res.end();
  });
}

/** How a namespaced tool's name is written in `Said.tools`: `<namespace>::<tool>` (no agent's tool has `::`). */
const NAMESPACED = '::';

/**
 * The names of the tools Codex offers. Codex 0.16 puts each MCP server's tools in one `namespace` tool
 * (openai/codex codex-rs/tools/src/tool_spec.rs `ToolSpec::Namespace`: `{type: "namespace", name:
 * "mcp__<server>", tools: [{type: "function", name, ...}]}`); each of them is listed as `<namespace>::<name>`.
 */
function codexToolNames(tools: { name?: string; type?: string; tools?: { name?: string }[] }[]): string[] {
  return tools.flatMap((t) =>
    t.type === 'namespace' && Array.isArray(t.tools)
      ? t.tools.map((inner) => `${t.name}${NAMESPACED}${inner.name ?? ''}`)
      : [t.name ?? t.type ?? ''],
  );
}

function codexToolCall(reply: Extract<Reply, { kind: 'tool' }>, tools: string[], n: number): Record<string, unknown> {
  const call_id = `call_${n}`;
  if (reply.tool === 'mcp') {
    // A tool of a namespace is called by its own name with the namespace beside it.
    const [namespace, name] = contactorToolName(tools, reply.name).split(NAMESPACED);
    const call = name === undefined ? { name: namespace } : { name, namespace };
    return { type: 'function_call', ...call, arguments: JSON.stringify(reply.args), call_id, id: `fc_${n}` };
  }
  if (reply.tool === 'shell') {
    const name = pickTool(tools, ['shell_command', 'shell', 'exec_command', 'local_shell']);
    const args =
      name === 'shell'
        ? { command: ['bash', '-lc', reply.command] }
        : name === 'exec_command'
          ? { cmd: reply.command }
          : { command: reply.command };
    return { type: 'function_call', name, arguments: JSON.stringify(args), call_id, id: `fc_${n}` };
  }
  const patch = `*** Begin Patch\n*** Add File: ${reply.file}\n+${reply.content}\n*** End Patch\n`;
  const name = pickTool(tools, ['apply_patch']);
  return { type: 'custom_tool_call', name, input: patch, call_id, id: `ctc_${n}` };
}

// ───────────── Gemini API (Gemini CLI) ─────────────

export function geminiServer(): Promise<MockServer> {
  return serve(async (path, body, res, noteTools) => {
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const last = contents.at(-1);
    const response = last?.parts?.find((p: { functionResponse?: unknown }) => p.functionResponse)?.functionResponse;
    const said: Said = {
      userTexts: contents
        .filter((c) => c?.role === 'user')
        .map((c) => (c.parts ?? []).map((p: { text?: string }) => p.text ?? '').join('\n'))
        .filter((t: string) => t !== ''),
      toolResult: response ? JSON.stringify(response.response ?? {}) : undefined,
      tools: (body?.tools ?? []).flatMap((t: { functionDeclarations?: { name: string }[] }) =>
        (t.functionDeclarations ?? []).map((f) => f.name),
      ),
    };
    if (path.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };
    // Side requests (routing, next-speaker and loop checks) ask for JSON, without tools.
    if (body?.generationConfig?.responseMimeType === 'application/json' || said.tools.length === 0) {
      const answer = JSON.stringify({ next_speaker: 'user', reasoning: 'mock', model_choice: 'flash' });
      const candidate = { content: { role: 'model', parts: [{ text: answer }] }, finishReason: 'STOP', index: 0 };
      if (path.includes(':streamGenerateContent')) {
        sse(res)({ candidates: [candidate], usageMetadata });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [candidate], usageMetadata }));
      }
      return;
    }
    noteTools(said.tools);
    const reply = decide(said);
    const send = sse(res);
    if (reply.kind === 'text') {
      await streamPieces(reply, res, (text) =>
        send({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }] }),
      );
    } else {
      const functionCall =
        reply.tool === 'mcp'
          ? { name: contactorToolName(said.tools, reply.name), args: reply.args }
          : reply.tool === 'shell'
            ? { name: pickTool(said.tools, ['run_shell_command']), args: { command: reply.command } }
            : { name: pickTool(said.tools, ['write_file']), args: { file_path: reply.file, content: reply.content } };
      send({ candidates: [{ content: { role: 'model', parts: [{ functionCall }] }, index: 0 }] });
    }
    send({
      candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
    });
    res.end();
  });
}

// ───────────── Chat Completions (OpenCode) ─────────────

export function chatCompletionsServer(): Promise<MockServer> {
  let n = 0;
  return serve(async (path, body, res, noteTools) => {
    if (!path.endsWith('/chat/completions')) {
      res.writeHead(path.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'lane-model', object: 'model' }] }));
      return;
    }
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const last = messages.at(-1);
    const said: Said = {
      userTexts: messages.filter((m) => m?.role === 'user').map((m) => textOfContent(m.content)),
      toolResult: last?.role === 'tool' ? textOfContent(last.content) : undefined,
      tools: (body?.tools ?? []).map((t: { function?: { name: string } }) => t.function?.name ?? ''),
    };
    noteTools(said.tools);
    const id = `chatcmpl_${(n += 1)}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body?.model ?? 'lane-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const send = sse(res);
    // A title or summary request comes without tools: a short text.
    const reply: Reply =
      said.tools.length === 0 ? { kind: 'text', pieces: ['lane task'], pieceDelayMs: 0 } : decide(said);
    if (reply.kind === 'text') {
      send(chunk({ role: 'assistant', content: '' }));
      await streamPieces(reply, res, (content) => send(chunk({ content })));
      send(chunk({}, 'stop'));
    } else {
      const call = chatToolCall(reply, said.tools);
      send(
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${n}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            },
          ],
        }),
      );
      send(chunk({}, 'tool_calls'));
    }
    send({ ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } });
    send('[DONE]');
    res.end();
  });
}

/** OpenCode's tools (bash, write) or Qwen Code's (run_shell_command, write_file), whichever the agent offers. */
function chatToolCall(reply: Extract<Reply, { kind: 'tool' }>, tools: string[]): { name: string; args: object } {
  if (reply.tool === 'mcp') return { name: contactorToolName(tools, reply.name), args: reply.args };
  const name = pickTool(tools, reply.tool === 'shell' ? ['bash', 'run_shell_command'] : ['write', 'write_file']);
  if (reply.tool === 'shell') {
    return name === 'bash'
      ? { name, args: { command: reply.command, description: 'lane command' } }
      : { name, args: { command: reply.command, is_background: false, description: 'lane command' } };
  }
  return name === 'write'
    ? { name, args: { filePath: reply.file, content: reply.content } }
    : { name, args: { file_path: reply.file, content: reply.content } };
}
