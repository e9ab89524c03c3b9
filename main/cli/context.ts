/** What every command gets: the shared options, the output, the environment and a lazy bridge client. */
import type { Command } from 'commander';
import { BridgeClient } from './bridge-client/bridge-client.js';
import { locateBridge, type BridgeAddress } from './bridge-client/locate.js';
import { Output } from './render/output.js';
import type { GlobalOptions } from './settings.js';

export class CliContext {
  private located: BridgeAddress | undefined;

  constructor(
    readonly opts: GlobalOptions,
    readonly out: Output,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  get json(): boolean {
    return this.opts.json === true;
  }

  address(): BridgeAddress {
    this.located ??= locateBridge(this.opts, this.env);
    return this.located;
  }

  client(): BridgeClient {
    return new BridgeClient(this.address());
  }
}

/** A command's action: gets the context and its own arguments, returns the exit code. */
export type Action<A extends unknown[]> = (cli: CliContext, ...args: A) => Promise<number>;
export type Runner = <A extends unknown[]>(action: Action<A>) => (...args: unknown[]) => Promise<void>;

/** What a run leaves for the entry point: its exit code, and the output its command wrote to. */
export interface RunState {
  exitCode: number;
  json: boolean;
  out?: Output;
}

/** Wraps actions so each one's exit code (and output) lands in `state`. */
export function createRunner(state: RunState, env: NodeJS.ProcessEnv): Runner {
  return <A extends unknown[]>(action: Action<A>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const opts = command.optsWithGlobals<GlobalOptions>();
      state.json = opts.json === true;
      state.out = new Output(state.json, { stdout: process.stdout, stderr: process.stderr, env });
      const cli = new CliContext(opts, state.out, env);
      state.exitCode = await action(cli, ...(args.slice(0, -1) as A));
    };
}
