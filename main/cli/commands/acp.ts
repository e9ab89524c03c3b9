/**
 * `contactor acp`: an ACP agent on stdin/stdout for editors (Zed, JetBrains, Neovim), forwarding to the
 * running bridge (started if none) with the install token, as the person's CLI does (docs/contract.md#acp).
 * The front door itself is main/front-doors/acp/; this verb gives it the bridge and the delegation fields.
 */
import type { Command } from 'commander';
import { ContactorMetaSchema } from '../../schema/contactor-meta.js';
import { BridgeFailure, type BridgeLink } from '../../front-doors/acp/bridge-link.js';
import { BridgeClient, StreamDropped } from '../bridge-client/bridge-client.js';
import { ensureBridge } from '../bridge-client/launch-bridge.js';
import type { CliContext, Runner } from '../context.js';
import { delegationFromEnv } from '../delegation-env.js';
import { CliError, EXIT } from '../exit-codes.js';
import { cliVersion } from '../version.js';

export function registerAcp(program: Command, run: Runner): void {
  program
    .command('acp')
    .description(
      'an ACP agent on stdin/stdout for editors (Zed, JetBrains, Neovim), reaching every agent of the bridge',
    )
    .option(
      '--agent <name>',
      "a new session's agent (default: the first the bridge lists); the session option `agent` changes it",
    )
    .action(run(acp));
}

async function acp(cli: CliContext, opts: { agent?: string }): Promise<number> {
  if (cli.json) throw new CliError('acp speaks ACP on stdout already; drop --json', EXIT.usage);
  // Loaded here, not with the program: the ACP SDK is for this verb alone (CLI start-up, docs/benchmark.md).
  const { serveOnStdio } = await import('../../front-doors/acp/agent-server.js');
  await serveOnStdio({
    link: async () => linkTo(new BridgeClient((await failsAsBridge(() => ensureBridge(cli.opts, cli.env))).address)),
    defaultAgent: opts.agent,
    delegation: (meta) => ({ ...delegationFromEnv(cli.env), ...delegationFromMeta(meta) }),
    version: cliVersion(),
  });
  return EXIT.completed;
}

function linkTo(client: BridgeClient): BridgeLink {
  return {
    call: (method, params, schema) => failsAsBridge(() => client.call(method, params, schema)),
    async *stream(method, params, opts = {}) {
      try {
        yield* client.stream(method, params, opts);
      } catch (err) {
        if (err instanceof StreamDropped || (err instanceof CliError && err.exitCode === EXIT.unreachable))
          throw new BridgeFailure(err.message, undefined, undefined, true);
        throw asBridgeFailure(err);
      }
    },
  };
}

async function failsAsBridge<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asBridgeFailure(err);
  }
}

function asBridgeFailure(err: unknown): unknown {
  return err instanceof CliError ? new BridgeFailure(err.message, err.rpc?.code, err.rpc?.data) : err;
}

/**
 * A bridge running `contactor acp` as an ACP agent sends its task's chain in the prompt's `_meta.contactor`
 * (docs/contract.md#agent-environment): passed on one hop deeper, so the loop guards hold across bridges.
 */
function delegationFromMeta(meta: unknown): { delegationDepth?: number; visitedAgents?: string[] } {
  const parsed = ContactorMetaSchema.safeParse(meta);
  if (!parsed.success) return {};
  const { delegationDepth, visitedAgents } = parsed.data.contactor;
  return {
    ...(delegationDepth !== undefined ? { delegationDepth: delegationDepth + 1 } : {}),
    ...(visitedAgents?.length ? { visitedAgents } : {}),
  };
}
