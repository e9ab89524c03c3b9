/**
 * `contactor send --all | --agents a,b | --capability tag <text>`: one brief to several agents through
 * `agents/orchestrate`. The bridge does not judge content: with `--mode best` every result is printed and
 * the caller applies its own rubric.
 */
import { randomUUID } from 'node:crypto';
import { AgentListSchema, OrchestrateResultSchema, type OrchestrateResult } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext } from '../context.js';
import { delegationFromEnv } from '../delegation-env.js';
import { CliError, EXIT } from '../exit-codes.js';
import { Interrupts } from '../interrupts.js';
import { stopStarted } from './stop-started.js';

export interface FanoutOptions {
  all?: boolean;
  agents?: string;
  capability?: string;
  mode: string;
  messageId?: string;
  context?: string;
  wait: boolean;
  detach?: boolean;
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
  const params = {
    ...(agents ? { agents } : { capability: opts.capability }),
    text,
    mode: opts.mode,
    // Always a messageId of our own: every child is then idempotent, so the same call again names the
    // same tasks (to show their ids at once, and to find them all after a Ctrl-C).
    messageId: opts.messageId ?? randomUUID(),
    ...(opts.context ? { contextId: opts.context } : {}),
    ...delegationFromEnv(cli.env),
  };
  const result = opts.wait
    ? await orchestrateAndWait(cli, client, params, opts.detach === true)
    : await client.call('agents/orchestrate', { ...params, blocking: false }, OrchestrateResultSchema);
  if (typeof result === 'number') return result;
  if (cli.json) cli.out.doc(result);
  else print(cli, result);
  return exitOf(result);
}

/**
 * Starts the children (their ids on stderr at once), then waits for them with the same call, blocking. On
 * Ctrl-C cancels every task it started, or with --detach leaves them running, one line each
 * (README.md#stopping-a-send); then the interrupt's exit code instead of a result.
 */
async function orchestrateAndWait(
  cli: CliContext,
  client: BridgeClient,
  params: Record<string, unknown>,
  detach: boolean,
): Promise<OrchestrateResult | number> {
  const interrupts = Interrupts.listen();
  const started = (result: OrchestrateResult) =>
    result.results.flatMap((r) => (r.taskId ? [{ id: r.taskId, agent: r.agent }] : []));
  let known: { id: string; agent: string }[] = [];
  interrupts.onSecond(() =>
    known.length > 0
      ? `stopped without waiting; these tasks may still be running: ${known.map((t) => `${t.id} (${t.agent})`).join(', ')}`
      : 'stopped before the bridge named the tasks; they may still be running: contactor tasks',
  );
  const call = (blocking: boolean, signal?: AbortSignal) =>
    client.call('agents/orchestrate', { ...params, blocking }, OrchestrateResultSchema, signal);
  try {
    const first = await call(false, interrupts.signal);
    known = started(first);
    for (const task of known) cli.out.note(`task ${task.id} (${task.agent})`);
    return await call(true, interrupts.signal);
  } catch (err) {
    if (!interrupts.signal.aborted) throw err;
    // The same call, not blocking, names every child the first one made (or makes them now, to cancel).
    const children = await call(false);
    const stopped = await stopStarted(cli, client, started(children), detach);
    if (cli.json) {
      const now = (r: OrchestrateResult['results'][number]) => (r.taskId ? stopped.get(r.taskId) : undefined);
      cli.out.doc({
        ...children,
        results: children.results.map((r) => ({ ...r, state: now(r)?.status.state ?? r.state })),
      });
    }
    return interrupts.exitCode;
  } finally {
    interrupts.dispose();
  }
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
