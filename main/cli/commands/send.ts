/** `contactor send <agent> <text|->`: delegate, follow to the next stop, print the reply. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CliTaskSchema } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { delegationFromEnv } from '../delegation-env.js';
import { CliError, EXIT, exitForState } from '../exit-codes.js';
import { followAndPrint } from '../render/follow-and-print.js';
import { fanout, isFanout, type FanoutOptions } from './fanout.js';
import { collect, parseSeconds, readStdin } from './arguments.js';

interface SendOptions extends FanoutOptions {
  context?: string;
  messageId?: string;
  wait: boolean;
  file: string[];
  cwd?: string;
  timeout?: number;
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
  const text = await briefText(textArg);
  const files = opts.file.map(attachment);
  const params = {
    agent,
    text,
    ...(opts.context ? { contextId: opts.context } : {}),
    ...(opts.messageId ? { messageId: opts.messageId } : {}),
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
  return followAndPrint(cli, client, { method: 'message/stream', params }, opts.timeout);
}

async function briefText(arg: string | undefined): Promise<string> {
  if (arg !== undefined && arg !== '-') return arg;
  if (arg === undefined && process.stdin.isTTY) {
    throw new CliError('nothing to send: give the text as an argument, or pipe it in with `-`', EXIT.usage);
  }
  const text = await readStdin();
  if (text.trim() === '') throw new CliError('nothing to send: stdin was empty', EXIT.usage);
  return text;
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
