/** `contactor send <agent> <text|->`: delegate, follow to the next stop, print the reply. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { AgentListSchema, CliTaskSchema } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import { Interrupted } from '../bridge-client/follow.js';
import type { CliContext, Runner } from '../context.js';
import { delegationFromEnv } from '../delegation-env.js';
import { CliError, EXIT, exitForState } from '../exit-codes.js';
import { Interrupts } from '../interrupts.js';
import { followAndPrint } from '../render/follow-and-print.js';
import { fanout, isFanout, type FanoutOptions } from './fanout.js';
import { collect, parseSeconds, readStdin } from './arguments.js';
import { stopStarted } from './stop-started.js';

interface SendOptions extends FanoutOptions {
  context?: string;
  messageId?: string;
  wait: boolean;
  file: string[];
  cwd?: string;
  timeout?: number;
  detach?: boolean;
}

export function registerSend(program: Command, run: Runner): void {
  program
    .command('send')
    .description('send work to an agent and wait for its result')
    .argument('[agent]', 'agent name (see `contactor agents`); with --all/--agents/--capability, the brief')
    .argument('[text]', 'the brief; "-" (or nothing, with piped stdin) reads it from stdin')
    .option('--context <contextId>', 'continue this conversation')
    .option('--message-id <id>', 'idempotency key: the same id returns the same task instead of running again')
    .option('--no-wait', 'return the task id at once')
    .option('--file <path>', 'attach a file (repeatable)', collect, [])
    .option('--cwd <dir>', "the agent's working directory for this task (default: the one in its config)")
    .option('--timeout <seconds>', 'stop waiting after this long (the task keeps running)', parseSeconds)
    .option('--detach', 'on Ctrl-C leave the task running and say how to follow it (default: cancel it)')
    .option('--all', 'fan out: send the brief to every agent')
    .option('--agents <names>', 'fan out to these agents (comma-separated)')
    .option('--capability <tag>', 'fan out to agents with this tag, skill tag or backend kind')
    .option('--mode <mode>', 'fan-out mode: all (every result), first (cancel the rest), best (all; you judge)', 'all')
    .action(run(send));
}

async function send(
  cli: CliContext,
  agentArg: string | undefined,
  textArg: string | undefined,
  opts: SendOptions,
): Promise<number> {
  if (isFanout(opts)) {
    if (textArg !== undefined)
      throw new CliError('with --all/--agents/--capability give only the brief, not an agent name', EXIT.usage);
    return fanout(cli, await briefText(agentArg), opts);
  }
  if (agentArg === undefined)
    throw new CliError('which agent? `contactor send <agent> "<brief>"` (see `contactor agents`)', EXIT.usage);
  const agent = agentArg;
  const text = await briefText(textArg).catch(async (err: unknown) => {
    if (!(err instanceof NothingToSend) || textArg !== undefined) throw err;
    throw new CliError(await agentNameTaken(cli, agent), EXIT.usage);
  });
  const files = opts.file.map(attachment);
  const params = {
    agent,
    text,
    ...(opts.context ? { contextId: opts.context } : {}),
    // Always a messageId of our own: after a Ctrl-C that came before the bridge named the task, the same
    // send finds it (docs/contract.md#sending-a-message) instead of guessing.
    messageId: opts.messageId ?? randomUUID(),
    ...(files.length ? { files } : {}),
    ...(opts.cwd !== undefined ? { cwd: path.resolve(opts.cwd) } : {}),
    ...delegationFromEnv(cli.env),
  };
  const client = cli.client();
  if (!opts.wait) {
    const task = await client.call('message/send', { ...params, configuration: { blocking: false } }, CliTaskSchema);
    if (cli.json) cli.out.doc(task);
    else {
      cli.out.line(task.id);
      cli.out.note(`follow it: contactor watch ${task.id}`);
    }
    const state = task.status.state;
    return state === 'rejected' || state === 'canceled' ? exitForState(state) : EXIT.completed;
  }
  return sendAndFollow(cli, client, params, opts);
}

/**
 * Follows the task this send started; on Ctrl-C cancels it (waiting for the bridge's answer) or, with
 * --detach, leaves it running — either way says which task and ends 130 (README.md#stopping-a-send).
 */
async function sendAndFollow(
  cli: CliContext,
  client: BridgeClient,
  params: { agent: string; messageId: string },
  opts: SendOptions,
): Promise<number> {
  const interrupts = Interrupts.listen();
  let taskId: string | undefined;
  interrupts.onSecond(() =>
    taskId
      ? `stopped without waiting; task ${taskId} may still be running: contactor get ${taskId}`
      : `stopped before the bridge named the task; it may still be running: contactor tasks --agent ${params.agent}`,
  );
  try {
    return await followAndPrint(
      cli,
      client,
      { method: 'message/stream', params },
      {
        timeoutSeconds: opts.timeout,
        showTaskId: true,
        signal: interrupts.signal,
        ownMessageId: opts.messageId !== undefined,
      },
    );
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    taskId = err.taskId ?? (await taskOfMessage(cli, client, params));
    const task =
      taskId === undefined
        ? undefined
        : (await stopStarted(cli, client, [{ id: taskId }], opts.detach === true)).get(taskId);
    // --json: the one document is the task as the cancel left it (or as it runs on, with --detach).
    if (cli.json) cli.out.doc(task ?? { error: { message: 'interrupted', exitCode: interrupts.exitCode } });
    return interrupts.exitCode;
  } finally {
    interrupts.dispose();
  }
}

/**
 * Before the first event the request may or may not have made a task: the same send under the same
 * messageId returns the task it made, or makes it now (to be canceled at once), never a second one.
 */
async function taskOfMessage(
  cli: CliContext,
  client: BridgeClient,
  params: { agent: string; messageId: string },
): Promise<string | undefined> {
  try {
    return (await client.call('message/send', { ...params, configuration: { blocking: false } }, CliTaskSchema)).id;
  } catch (err) {
    cli.out.note(
      `stopped before the bridge named the task, and could not look it up (${(err as Error).message}); it may still be running: contactor tasks --agent ${params.agent}`,
    );
    return undefined;
  }
}

class NothingToSend extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

async function briefText(arg: string | undefined): Promise<string> {
  if (arg !== undefined && arg !== '-') return arg;
  if (arg === undefined && process.stdin.isTTY) {
    throw new NothingToSend('nothing to send: give the text as an argument, or pipe it in with `-`');
  }
  const text = await readStdin();
  if (text.trim() === '') throw new NothingToSend('nothing to send: stdin was empty');
  return text;
}

/**
 * `send "fix the tests"` with the agent forgotten: the one argument was read as the agent's name and no
 * brief followed. Say so, with the agents to choose from (the bridge's list, when it is up).
 */
async function agentNameTaken(cli: CliContext, name: string): Promise<string> {
  const agents = await cli
    .client()
    .call('agents/list', {}, AgentListSchema)
    .then((list) => list.agents.map((a) => a.name))
    .catch(() => undefined);
  const choose = agents?.length ? `agents: ${agents.join(', ')}` : 'see `contactor agents`';
  return `no brief: "${name}" was taken as the agent name; give the agent first: contactor send <agent> "<brief>" (${choose})`;
}

const MIME: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.pdf': 'application/pdf',
};

function attachment(file: string): { name: string; mimeType?: string; bytes: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new CliError(`cannot read --file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, EXIT.usage);
  }
  const mimeType = MIME[path.extname(file).toLowerCase()];
  return { name: path.basename(file), ...(mimeType ? { mimeType } : {}), bytes: bytes.toString('base64') };
}
