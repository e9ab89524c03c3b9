/**
 * `contactor reload`: the running bridge re-reads its config now (it also watches the file). Agents
 * added, changed or removed apply at once; an edit that does not validate is exit 2 with file:line: key,
 * and the bridge keeps the last good config.
 */
import type { Command } from 'commander';
import { ConfigStateSchema, type ConfigStateReport } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Output } from '../render/output.js';

export function registerReload(program: Command, run: Runner): void {
  program
    .command('reload')
    .description('make the running bridge apply its config file now (it also applies saved edits by itself)')
    .action(run(reload));
}

async function reload(cli: CliContext): Promise<number> {
  const state = await cli.client().call('config/reload', {}, ConfigStateSchema);
  if (cli.json) cli.out.doc(state);
  else if (!state.error) {
    const parts = [
      state.added?.length && `added ${state.added.join(', ')}`,
      state.changed?.length && `changed ${state.changed.join(', ')}`,
      state.removed?.length && `removed ${state.removed.join(', ')}`,
    ].filter(Boolean);
    cli.out.line(`reloaded ${state.path}: ${parts.length ? parts.join('; ') : 'no agent changed'}`);
    printRestartNeeded(cli.out, state);
  }
  if (state.error) {
    throw new CliError(
      `${state.error}\n  the bridge keeps its last good config; fix the file (\`contactor config check\`), it applies on save`,
      EXIT.usage,
    );
  }
  return EXIT.completed;
}

/** Keys the bridge reads only at start. */
export function printRestartNeeded(out: Output, state: ConfigStateReport): void {
  if (state.restartNeeded.length)
    out.line(
      `note: ${state.restartNeeded.join(', ')} changed; that takes a restart (\`contactor down && contactor up\`)`,
    );
}
