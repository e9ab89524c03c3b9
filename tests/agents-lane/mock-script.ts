/**
 * What the mock model servers answer, whatever their wire format: a tiny script read from the person's
 * latest `LANE:` line in the conversation. Each server (mock-models.ts) turns the conversation into
 * `Said` and the `Reply` back into its own API's stream.
 *
 *   LANE: say <text>            a text reply
 *   LANE: run <command>         a tool call running <command> in the agent's shell tool; then the tool's output
 *   LANE: write <file> <text>   a tool call writing <text> into <file> with the agent's write tool
 *   LANE: slow                  a reply streamed in many pieces over a long time (for cancel)
 *   LANE: pieces <n>            a reply of <n> pieces, 500 ms apart (for streaming)
 *   LANE: pieces <n> until <gate>
 *                               the same, the last piece held until the test opens <gate> (mock-models.ts
 *                               openGate): a test that waits to see the first pieces, then opens it, knows
 *                               they arrived while the agent streamed
 *   LANE: remember <word>       "remembered"; a later `LANE: recall` in the same conversation answers the word
 *   LANE: recall                "you said <word>", or "nothing to recall" when the conversation lost it
 *   LANE: delegate <agent> <brief>
 *                               a call of contactor's MCP tool send_task (mcp-tools.ts) giving <brief> to <agent>;
 *                               `@` at the brief's start stands for `LANE: ` (a directive for a lane agent's
 *                               own mock). While the delegated task is not done (it asks, or the wait ran out),
 *                               get_task with wait: true follows it; once done, the tool's result is the answer
 *   LANE: get <taskId>          a call of contactor's get_task for <taskId>; then the tool's result
 */

export interface Said {
  /** The person's messages, oldest first (an agent's own wrapping text included). */
  userTexts: string[];
  /** The last item is a tool's result (the model speaks after its tool ran). */
  toolResult: string | undefined;
  /** Tool names the agent offered. */
  tools: string[];
}

export type Reply =
  | {
      kind: 'text';
      pieces: string[];
      pieceDelayMs: number;
      /** The last piece waits until the test opens this gate (mock-models.ts `openGate`). */
      lastPieceAfter?: string;
    }
  | { kind: 'tool'; tool: 'shell'; command: string }
  | { kind: 'tool'; tool: 'write'; file: string; content: string }
  | { kind: 'tool'; tool: 'mcp'; name: ContactorTool; args: Record<string, unknown> };

/** The contactor MCP tools the lane's mocks call (docs/contract.md#mcp-tools). */
export type ContactorTool = 'send_task' | 'get_task';

const DIRECTIVE = /LANE: (say|run|write|slow|pieces|remember|recall|delegate|get)\b ?([^\n]*)/g;

function lastDirective(texts: string[]): { verb: string; rest: string } | undefined {
  for (const text of [...texts].reverse()) {
    const all = [...text.matchAll(DIRECTIVE)];
    const last = all.at(-1);
    if (last) return { verb: last[1]!, rest: last[2]!.trim() };
  }
  return undefined;
}

const text = (s: string): Reply => ({ kind: 'text', pieces: [s], pieceDelayMs: 0 });

export function decide(said: Said): Reply {
  const following = followDelegation(said);
  if (following) return following;
  if (said.toolResult !== undefined) {
    return text(`tool finished: ${said.toolResult.replace(/\s+/g, ' ').trim().slice(0, 600)}`);
  }
  const latest = said.userTexts.at(-1) ?? '';
  // The bridge's word after a restart (domain/pending.ts permissionFollowUp).
  if (/rejected it/.test(latest) && !latest.includes('LANE:')) return text('understood, not running it');
  const directive = lastDirective(said.userTexts);
  if (!directive) return text('no LANE directive');
  const { verb, rest } = directive;
  switch (verb) {
    case 'say':
      return text(rest);
    case 'run':
      return { kind: 'tool', tool: 'shell', command: rest };
    case 'write': {
      const [file = 'out.txt', ...words] = rest.split(' ');
      return { kind: 'tool', tool: 'write', file, content: words.join(' ') };
    }
    case 'slow':
      return { kind: 'text', pieces: Array.from({ length: 600 }, (_, i) => `piece ${i} `), pieceDelayMs: 100 };
    case 'pieces': {
      const [count, until, gate] = rest.split(' ');
      return {
        kind: 'text',
        pieces: Array.from({ length: Number(count) || 5 }, (_, i) => `part${i} `),
        pieceDelayMs: 500,
        ...(until === 'until' && gate ? { lastPieceAfter: gate } : {}),
      };
    }
    case 'remember':
      return text('remembered');
    case 'recall': {
      const earlier = lastRemembered(said.userTexts.slice(0, -1));
      return text(earlier ? `you said ${earlier}` : 'nothing to recall');
    }
    case 'delegate': {
      const [agent = 'echo', ...words] = rest.split(' ');
      const brief = words.join(' ').replace(/^@/, 'LANE: ');
      return { kind: 'tool', tool: 'mcp', name: 'send_task', args: { agent, brief } };
    }
    case 'get':
      return { kind: 'tool', tool: 'mcp', name: 'get_task', args: { taskId: rest } };
    default:
      return text(`unknown directive ${verb}`);
  }
}

function lastRemembered(texts: string[]): string | undefined {
  for (const t of [...texts].reverse()) {
    const m = [...t.matchAll(/LANE: remember (\S+)/g)].at(-1);
    if (m) return m[1];
  }
  return undefined;
}

/** The offered tool that fits: the first name of `names` the agent has. */
export function pickTool(offered: string[], names: string[]): string {
  const found = names.find((n) => offered.includes(n));
  if (!found) throw new Error(`the agent offers none of ${names.join(', ')} (it offers ${offered.join(', ')})`);
  return found;
}

/**
 * After a send_task (or get_task) of a `delegate` turn whose task is not done: get_task with wait: true, as a
 * model told "still running" or "waits for an answer" would (the person answers through the bridge). The
 * result comes back as text or as its JSON (structuredContent), whichever the agent passes on.
 */
function followDelegation(said: Said): Reply | undefined {
  if (said.toolResult === undefined || lastDirective(said.userTexts)?.verb !== 'delegate') return undefined;
  const result = said.toolResult.replace(/\\"/g, '"');
  const head = /task (\S+) \([^)]*\): ([a-z-]+)/.exec(result);
  const taskId = head?.[1] ?? /"taskId"\s*:\s*"([^"]+)"/.exec(result)?.[1];
  const state = head?.[2] ?? /"state"\s*:\s*"([^"]+)"/.exec(result)?.[1];
  if (!taskId || !state || ['completed', 'failed', 'canceled', 'rejected'].includes(state)) return undefined;
  return { kind: 'tool', tool: 'mcp', name: 'get_task', args: { taskId, wait: true } };
}

/**
 * The name an agent gives a contactor MCP tool among its tools: each prefixes the server's name its own
 * way (Claude Code `mcp__contactor__send_task`, OpenCode `contactor_send_task`, ...) or not at all.
 */
export function contactorToolName(offered: string[], tool: ContactorTool): string {
  const found = findContactorTool(offered, tool);
  if (!found) throw new Error(`the agent offers no contactor ${tool} (it offers ${offered.join(', ')})`);
  return found;
}

export function findContactorTool(offered: string[], tool: ContactorTool): string | undefined {
  return offered.find((n) => n.includes('contactor') && n.endsWith(tool)) ?? offered.find((n) => n === tool);
}
