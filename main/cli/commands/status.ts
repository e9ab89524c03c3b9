/** `contactor status`: is the bridge up, and how busy are its agents. */
import type { Command } from 'commander';
import { AgentListSchema, ConfigStateSchema, type ConfigStateReport } from '../../schema/cli.js';
import { portInUse, unreachable, type BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { printRestartNeeded } from './reload.js';

export function registerStatus(program: Command, run: Runner): void {
  program.command('status').description('whether the bridge runs, and its agents').action(run(status));
}

async function status(cli: CliContext): Promise<number> {
  const client = cli.client();
  const found = await client.presence();
  if (found.kind === 'other') throw portInUse(client.address.url, found.detail);
  if (found.kind === 'nothing') throw unreachable(client.address.url);
  const { health } = found;
  const { agents } = await client.call('agents/list', {}, AgentListSchema);
  const config = await configState(client);
  if (cli.json) {
    cli.out.doc({ url: client.address.url, health, agents, ...(config ? { config } : {}) });
    return EXIT.completed;
  }
  cli.out.line(
    `contactor ${health.version} running at ${client.address.url} (pid ${health.pid}, up ${uptime(health.uptimeS)})`,
  );
  cli.out.line(`${agents.length} agent${agents.length === 1 ? '' : 's'}:`);
  for (const a of agents) {
    const busy = [
      a.queue.running && `${a.queue.running} running`,
      a.queue.waiting && `${a.queue.waiting} waiting`,
      a.queue.needsAnswer && `${a.queue.needsAnswer} to answer`,
    ].filter(Boolean);
    cli.out.line(`  ${a.name} (${a.backend}): ${busy.length ? busy.join(', ') : 'idle'}`);
  }
  if (config?.error) {
    cli.out.line(`config: the latest edit of ${config.path} is NOT in use (the last good config is):`);
    cli.out.line(`  ${config.error}`);
  } else if (config) cli.out.line(`config: ${config.path} (loaded ${config.loadedAt})`);
  if (config) printRestartNeeded(cli.out, config);
  return EXIT.completed;
}

/** The bridge's config state; undefined from a bridge too old to say. */
export async function configState(client: BridgeClient): Promise<ConfigStateReport | undefined> {
  try {
    return await client.call('config/status', {}, ConfigStateSchema);
  } catch (err) {
    if (err instanceof CliError && err.rpc?.code === -32601) return undefined;
    throw err;
  }
}

function uptime(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
