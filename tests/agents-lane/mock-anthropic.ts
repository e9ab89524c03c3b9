/**
 * A mock of the Anthropic Messages API on 127.0.0.1 for Claude Code (the CLI that
 * @agentclientprotocol/claude-agent-acp runs through @anthropic-ai/claude-agent-sdk), streaming what
 * mock-script.ts decides.
 *
 * The CLI takes `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` and, with telemetry and non-essential traffic
 * off (`DISABLE_TELEMETRY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`), calls nothing but
 * `POST <base>/v1/messages?beta=true` (watched on the wire: the CLI ships as a compiled binary). A turn is
 * streamed (`stream: true`) as the SSE events of the Messages API's streaming reference
 * (docs.anthropic.com "Streaming Messages"): message_start, content_block_start, content_block_delta
 * (text_delta, input_json_delta), content_block_stop, message_delta (stop_reason), message_stop. A request
 * without `stream: true` (a short check of the CLI's, or its retry after a failed stream) gets the whole
 * message as JSON. A tool call is a `tool_use` block; its result comes back as a `tool_result` block in the
 * next user message.
 */
import type { ServerResponse } from 'node:http';
import { serve, sse, streamPieces, type MockServer } from './mock-models.js';
import { contactorToolName, decide, findContactorTool, pickTool, type Reply, type Said } from './mock-script.js';

type Block = { type?: string; text?: string; content?: unknown; id?: string; name?: string; tool_use_id?: string };
type Message = { role?: string; content?: string | Block[] };

function blocks(message: Message): Block[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? []);
}

function toolResultText(block: Block): string {
  if (typeof block.content === 'string') return block.content;
  if (Array.isArray(block.content)) return block.content.map((c: Block) => c.text ?? '').join('\n');
  return '';
}

/** What the person said: a user message's text blocks (tool results are user messages too, and are not). */
function anthropicSaid(body: { messages?: Message[]; tools?: { name?: string }[] }): Said {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const userTexts = messages
    .filter((m) => m?.role === 'user')
    .map((m) =>
      blocks(m)
        .filter((b) => b.type === 'text')
        .map((b) => b.text ?? '')
        .join('\n'),
    )
    .filter((t) => t !== '');
  const last = messages.at(-1);
  const result = last?.role === 'user' ? blocks(last).find((b) => b.type === 'tool_result') : undefined;
  // A ToolSearch only loaded the tools the directive needs: the model goes on with the directive.
  const searched =
    result !== undefined &&
    messages.some((m) =>
      blocks(m).some((b) => b.type === 'tool_use' && b.id === result.tool_use_id && b.name === TOOL_SEARCH),
    );
  return {
    userTexts,
    toolResult: result && !searched ? toolResultText(result) : undefined,
    tools: (body?.tools ?? []).map((t) => t.name ?? ''),
  };
}

/** Claude Code's tool that loads deferred tools (MCP tools among them) into the conversation. */
const TOOL_SEARCH = 'ToolSearch';

function toolUse(reply: Extract<Reply, { kind: 'tool' }>, tools: string[]): { name: string; input: object } {
  if (reply.tool === 'mcp') {
    // Claude Code defers MCP tools behind ToolSearch: the model loads them by name (`select:<names>`) first,
    // both at once, since a delegation goes on with get_task after send_task.
    if (!findContactorTool(tools, reply.name) && tools.includes(TOOL_SEARCH)) {
      const query = 'select:mcp__contactor__send_task,mcp__contactor__get_task';
      return { name: TOOL_SEARCH, input: { query, max_results: 5 } };
    }
    return { name: contactorToolName(tools, reply.name), input: reply.args };
  }
  return reply.tool === 'shell'
    ? { name: pickTool(tools, ['Bash']), input: { command: reply.command, description: 'lane command' } }
    : { name: pickTool(tools, ['Write']), input: { file_path: reply.file, content: reply.content } };
}

export function anthropicServer(): Promise<MockServer> {
  let n = 0;
  return serve(async (path, body, res, noteTools) => {
    if (!path.startsWith('/v1/messages') || path.startsWith('/v1/messages/')) {
      notFound(res, path);
      return;
    }
    const said = anthropicSaid(body);
    noteTools(said.tools);
    // A side request (a title, a summary) comes without tools: a short text, whatever the person asked.
    const reply: Reply =
      said.tools.length === 0 ? { kind: 'text', pieces: ['lane task'], pieceDelayMs: 0 } : decide(said);
    const id = `msg_lane_${(n += 1)}`;
    const model = typeof body?.model === 'string' ? body.model : 'claude-lane';
    const usage = { input_tokens: 10, output_tokens: 10 };
    if (body?.stream !== true) {
      const content =
        reply.kind === 'text'
          ? [{ type: 'text', text: reply.pieces.join('') }]
          : [{ type: 'tool_use', id: `toolu_lane_${n}`, ...toolUse(reply, said.tools) }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    const send = sse(res);
    const event = (type: string, data: Record<string, unknown>) => send({ type, ...data }, type);
    event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    });
    if (reply.kind === 'text') {
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      await streamPieces(reply, res, (text) =>
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
      );
    } else {
      const { name, input } = toolUse(reply, said.tools);
      event('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: `toolu_lane_${n}`, name, input: {} },
      });
      // The input in two pieces, as the API streams it: the client joins them before parsing.
      const json = JSON.stringify(input);
      const half = Math.floor(json.length / 2);
      for (const partial_json of [json.slice(0, half), json.slice(half)])
        event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json } });
    }
    if (res.destroyed) return;
    event('content_block_stop', { index: 0 });
    event('message_delta', {
      delta: { stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { output_tokens: 10 },
    });
    event('message_stop', {});
    res.end();
  });
}

/** Anything else the CLI might call answers the API's own error shape, so its message says which path. */
function notFound(res: ServerResponse, path: string): void {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `lane mock: no ${path}` } }));
}
