/**
 * `contactor send --all | --agents a,b | --capability tag <text>`: one brief to several agents through
 * `agents/orchestrate`. The bridge does not judge content: with `--mode best` every result is printed and
 * the caller applies its own rubric.
 */
import { AgentListSchema, OrchestrateResultSchema, type OrchestrateResult } from '../../schema/cli.js';
import type { CliContext } from '../context.js';
import { delegationFromEnv } from '../delegation-env.js';
import { CliError, EXIT } from '../exit-codes.js';

export interface FanoutOptions {
  all?: boolean;
  agents?: string;
  capability?: string;
  mode: string;
  messageId?: string;
  context?: string;
  wait: boolean;
}

export function isFanout(opts: FanoutOptions): boolean {
  return opts.all === true || opts.agents !== undefined || opts.capability !== undefined;
}

export async function fanout(cli: CliContext, text: string, opts: FanoutOptions): Promise<number> {
  // --all alone means every agent; with --agents or --capability it only says "fan out".
  if (opts.agents !== undefined && opts.capability !== undefined) {
    throw new CliError('use --agents or --capability, not both', EXIT.usage);
  }
  if (!['all', 'first', 'best'].includes(opts.mode)) throw new CliError('--mode is all, first or best', EXIT.usage);
  const client = cli.client();
  const agents =
    opts.agents !== undefined
      ? opts.agents
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean)
      : opts.capability === undefined
        ? await everyAgent(cli)
        : undefined;
  const result = await client.call(
    'agents/orchestrate',
    {
      ...(agents ? { agents } : { capability: opts.capability }),
      text,
      mode: opts.mode,
      blocking: opts.wait,
      ...(opts.messageId ? { messageId: opts.messageId } : {}),
      ...(opts.context ? { contextId: opts.context } : {}),
      ...delegationFromEnv(cli.env),
    },
    OrchestrateResultSchema,
  );
  if (cli.json) cli.out.doc(result);
  else print(cli, result);
  return exitOf(result);
}

async function everyAgent(cli: CliContext): Promise<string[]> {
  const list = await cli.client().call('agents/list', {}, AgentListSchema);
  if (list.agents.length === 0) throw new CliError('no agents are configured', EXIT.usage);
  return list.agents.map((a) => a.name);
}

function print(cli: CliContext, result: OrchestrateResult): void {
  for (const r of result.results) {
    const mark = result.winner === r.agent ? ' ★' : '';
    cli.out.line(cli.out.c.bold(`── ${r.agent} [${r.state}]${mark}${r.taskId ? ` ${r.taskId}` : ''}`));
    cli.out.text(r.text ?? r.reason ?? '');
  }
  if (result.note) cli.out.note(result.note);
}

/** 0 when every agent completed (`first`: when one won), 3 when none failed but some wait, else 1. */
function exitOf(result: OrchestrateResult): number {
  const states = result.results.map((r) => r.state);
  if (result.mode === 'first') return result.winner ? EXIT.completed : EXIT.failed;
  if (states.every((s) => s === 'completed')) return EXIT.completed;
  if (states.every((s) => ['completed', 'input-required', 'auth-required', 'submitted', 'working'].includes(s)))
    return EXIT.waiting;
  return EXIT.failed;
}
