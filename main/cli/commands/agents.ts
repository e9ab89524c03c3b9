/** `agents` (who is configured, what each can do, how busy) and `card <agent>`. */
import type { Command } from 'commander';
import { AgentCardSchema, AgentListSchema, type AgentSummary } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { table, truncate } from '../render/table.js';
import type { Output } from '../render/output.js';
import { shown, widthOf, type ScreenText } from '../render/screen-text.js';

const TRAITS_URI = 'urn:contactor:agent-traits:v1';

export function registerAgents(program: Command, run: Runner): void {
  program.command('agents').description('the configured agents: capabilities and queues').action(run(agents));
  program.command('card').description("an agent's card: what it says it can do").argument('<agent>').action(run(card));
}

async function agents(cli: CliContext): Promise<number> {
  const list = await cli.client().call('agents/list', {}, AgentListSchema);
  if (cli.json) {
    cli.out.doc(list);
    return EXIT.completed;
  }
  if (list.agents.length === 0) {
    cli.out.line('no agents configured; add some to config.yaml (`contactor scan` proposes entries)');
    return EXIT.completed;
  }
  for (const line of agentLines(cli.out, list.agents)) cli.out.line(line);
  return EXIT.completed;
}

const HEADER = ['AGENT', 'BACKEND', 'REPLY', 'ASKS', 'INTERRUPTIBLE', 'QUEUE', 'DESCRIPTION'];
const QUEUE = 5;
const DESCRIPTION = 6;
/** The note a short `no*` in the ASKS column points to, when the long form does not fit. */
const ASKS_NOTE = '* asks only with append_decision_contract: true in its config';

/**
 * The table, fitted to the terminal as `contactor top` is (render/table.ts): the description gives way first,
 * then the queue; the ASKS column's hint moves under the table when the long form does not fit.
 */
export function agentLines(out: Output, agents: readonly AgentSummary[]): ScreenText[] {
  const width = out.columns;
  const fit = width === undefined ? undefined : { width, giveWay: [DESCRIPTION, QUEUE] };
  const lines = (short: boolean) => {
    const yes = (b: boolean) => (b ? out.c.green('yes') : out.c.dim('no'));
    const rows = agents.map((a) => [
      out.c.bold(a.name),
      a.backend,
      // Status always streams; this column says how the reply text arrives (the card's words).
      a.traits.streaming ? 'streamed' : out.c.dim('one piece'),
      asks(out, a.backend, a.traits.inputRequired, short),
      yes(a.traits.interruptible),
      `${a.queue.running} running, ${a.queue.waiting} waiting, ${a.queue.needsAnswer} to answer`,
      truncate(a.description, 60),
    ]);
    return table(HEADER, rows, fit);
  };
  const long = lines(false);
  if (width === undefined || long.every((l) => widthOf(l) <= width)) return long;
  const short = lines(true);
  return asksHinted(agents) ? [...short, out.c.dim(ASKS_NOTE)] : short;
}

function asksHinted(agents: readonly AgentSummary[]): boolean {
  return agents.some((a) => !a.traits.inputRequired && HINTED.has(a.backend));
}

const HINTED = new Set(['subprocess_cli', 'http_api']);

/**
 * Whether the agent can stop to ask. A CLI or chat endpoint asks only through the decision contract, which a
 * program contactor does not know gets only when its config says so: name the key that turns it on.
 */
function asks(out: Output, backend: string, inputRequired: boolean, short: boolean): ScreenText {
  if (inputRequired) return out.c.green('yes');
  if (HINTED.has(backend)) return out.c.dim(short ? 'no*' : 'no (add append_decision_contract: true)');
  return out.c.dim('no');
}

async function card(cli: CliContext, agent: string): Promise<number> {
  const found = await cli.client().call('agents/card', { agent }, AgentCardSchema);
  if (cli.json) {
    cli.out.doc(found);
    return EXIT.completed;
  }
  cli.out.line(shown`${cli.out.c.bold(found.name)}${found.version ? ` ${found.version}` : ''}`);
  cli.out.line(found.description);
  const traits = found.capabilities.extensions?.find((e) => e.uri === TRAITS_URI)?.params ?? {};
  const caps = { streaming: found.capabilities.streaming, ...traits };
  for (const [key, value] of Object.entries(caps))
    if (value !== undefined) cli.out.line(`  ${key}: ${JSON.stringify(value)}`);
  for (const skill of found.skills)
    cli.out.line(`  skill ${skill.id}: ${skill.name}${skill.description ? ` — ${skill.description}` : ''}`);
  return EXIT.completed;
}
