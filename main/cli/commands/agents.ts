/** `agents` (who is configured, what each can do, how busy) and `card <agent>`. */
import type { Command } from 'commander';
import { AgentCardSchema, AgentListSchema } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { table, truncate } from '../render/table.js';
import { shown, type ScreenText } from '../render/screen-text.js';

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
  const yes = (b: boolean) => (b ? cli.out.c.green('yes') : cli.out.c.dim('no'));
  const rows = list.agents.map((a) => [
    cli.out.c.bold(a.name),
    a.backend,
    // Status always streams; this column says how the reply text arrives (the card's words).
    a.traits.streaming ? 'streamed' : cli.out.c.dim('one piece'),
    asks(cli, a.backend, a.traits.inputRequired),
    yes(a.traits.interruptible),
    `${a.queue.running} running, ${a.queue.waiting} waiting, ${a.queue.needsAnswer} to answer`,
    truncate(a.description, 60),
  ]);
  for (const line of table(['AGENT', 'BACKEND', 'REPLY', 'ASKS', 'INTERRUPTIBLE', 'QUEUE', 'DESCRIPTION'], rows))
    cli.out.line(line);
  return EXIT.completed;
}

/**
 * Whether the agent can stop to ask. A CLI or chat endpoint asks only through the decision contract, which a
 * program contactor does not know gets only when its config says so: name the key that turns it on.
 */
function asks(cli: CliContext, backend: string, inputRequired: boolean): ScreenText {
  if (inputRequired) return cli.out.c.green('yes');
  if (backend === 'subprocess_cli' || backend === 'http_api')
    return cli.out.c.dim('no (add append_decision_contract: true)');
  return cli.out.c.dim('no');
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
