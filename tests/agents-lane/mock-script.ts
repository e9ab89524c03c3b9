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
 *   LANE: remember <word>       "remembered"; a later `LANE: recall` in the same conversation answers the word
 *   LANE: recall                "you said <word>", or "nothing to recall" when the conversation lost it
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
  | { kind: 'text'; pieces: string[]; pieceDelayMs: number }
  | { kind: 'tool'; tool: 'shell'; command: string }
  | { kind: 'tool'; tool: 'write'; file: string; content: string };

const DIRECTIVE = /LANE: (say|run|write|slow|pieces|remember|recall)\b ?([^\n]*)/g;

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
  if (said.toolResult !== undefined) {
    return text(`tool finished: ${said.toolResult.replace(/\s+/g, ' ').trim().slice(0, 300)}`);
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
    case 'pieces':
      return {
        kind: 'text',
        pieces: Array.from({ length: Number(rest) || 5 }, (_, i) => `part${i} `),
        pieceDelayMs: 500,
      };
    case 'remember':
      return text('remembered');
    case 'recall': {
      const earlier = lastRemembered(said.userTexts.slice(0, -1));
      return text(earlier ? `you said ${earlier}` : 'nothing to recall');
    }
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
