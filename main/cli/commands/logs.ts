/**
 * `contactor logs <agent> [-n N] [-f]`: the agent's own stderr as the bridge kept it
 * (`<data_dir>/logs/agents/<agent>.log`, backends/process/agent-log.ts), already redacted. Reads the file
 * directly, so it works with the bridge down; `-f` keeps printing what the agent writes, across rotations.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { agentLogFile } from '../../config/data-dir.js';
import type { Action } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { BridgeConfig } from '../../schema/config.js';
import { configLocation, dataDirOf, readConfig } from '../settings.js';

/** How often `-f` looks for new lines. */
const FOLLOW_POLL_MS = 500;

/** The last `count` lines of an agent's log, the rotated file first when the current one holds fewer. */
export function readAgentLogTail(dataDir: string, agent: string, count: number): string[] {
  const file = agentLogFile(dataDir, agent);
  const lines: string[] = [];
  for (const f of [file, `${file}.1`]) {
    if (!existsSync(f)) continue;
    const text = readFileSync(f, 'utf8').split('\n').filter(Boolean);
    lines.unshift(...text);
    if (lines.length >= count) break;
  }
  return lines.slice(-count);
}

/** The last lines an agent's log marks as warnings or errors (what `doctor` shows for a failed probe). */
export function agentWarnings(dataDir: string, agent: string, count = 5): string[] {
  return readAgentLogTail(dataDir, agent, 500)
    .filter((line) => /\b(warn(ing)?|error|fatal|failed|panic)\b/i.test(line))
    .slice(-count);
}

export const logsCommand: Action<[string, { lines?: string; follow?: boolean }]> = async (cli, agent, options) => {
  const count = Number(options.lines ?? '50');
  if (!Number.isInteger(count) || count < 1)
    throw new CliError(`-n needs a whole number of lines (1 or more), not "${options.lines}"`, EXIT.usage);
  const dataDir = dataDirOf(cli.opts, cli.env);
  const file = agentLogFile(dataDir, agent);
  const lines = readAgentLogTail(dataDir, agent, count);
  if (lines.length === 0) {
    const none = whyNoStderr(cli, agent);
    if (none) throw new CliError(none, EXIT.usage);
  }
  if (cli.json && !options.follow) {
    cli.out.doc({ agent, file, lines });
    return EXIT.completed;
  }
  if (lines.length === 0) cli.out.note(`no stderr kept for agent ${agent} yet (${file})`);
  for (const line of lines) cli.out.line(line);
  if (!options.follow) return EXIT.completed;
  await follow(file, (text) => cli.out.text(text));
  return EXIT.completed;
};

/**
 * Why an agent with no log never will have one: no such agent in the config (a typo), or a kind that runs
 * no process of its own (an HTTP endpoint, a remote A2A peer). Undefined when stderr may simply not have
 * come yet, or the config cannot be read to tell.
 */
function whyNoStderr(cli: Parameters<typeof logsCommand>[0], agent: string): string | undefined {
  let agents: BridgeConfig['agents'];
  try {
    agents = readConfig(configLocation(cli.opts, cli.env).path, cli.env).agents;
  } catch {
    return undefined;
  }
  const config = agents[agent];
  if (!config) {
    const known = Object.keys(agents);
    return `no agent named "${agent}" in the config; ${known.length ? `agents: ${known.join(', ')}` : 'it has no agents yet (`contactor scan` proposes some)'}`;
  }
  if (config.kind === 'http_api' || config.kind === 'a2a')
    return `agent ${agent} is an ${config.kind} agent: the bridge starts no process for it, so it has no stderr; a failed task's reason is in \`contactor get <task>\``;
  return undefined;
}

/** Prints what is appended to `file` until the process is interrupted; a rotation starts over at 0. */
async function follow(file: string, print: (text: string) => void): Promise<never> {
  let offset = existsSync(file) ? statSync(file).size : 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    if (!existsSync(file)) continue;
    const size = statSync(file).size;
    if (size < offset) offset = 0; // rotated: the new file is read from its start
    if (size === offset) continue;
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      print(buffer.toString('utf8'));
    } finally {
      closeSync(fd);
    }
  }
}
