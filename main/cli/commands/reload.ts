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
import { describeChanges } from '../../config/config-changes.js';

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
    cli.out.line(`reloaded ${state.path}: ${whatChanged(state)}`);
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

/**
 * What this reload changed; when nothing, what the bridge's own reload of the saved edit changed (it
 * applies a save by itself, usually before `contactor reload` runs).
 */
export function whatChanged(
  state: Pick<ConfigStateReport, 'added' | 'changed' | 'removed' | 'changedSettings' | 'lastChanges'>,
): string {
  const now = describeChanges({
    added: state.added ?? [],
    changed: state.changed ?? [],
    removed: state.removed ?? [],
    changedSettings: state.changedSettings ?? {},
  });
  if (now) return now;
  const last = state.lastChanges;
  const earlier = last ? describeChanges(last) : '';
  return last && earlier
    ? `nothing new; the bridge applied the saved edit at ${last.at}: ${earlier}`
    : 'no agent changed';
}

/** Keys the bridge reads only at start. */
export function printRestartNeeded(out: Output, state: ConfigStateReport): void {
  if (state.restartNeeded.length)
    out.line(
      `note: ${state.restartNeeded.join(', ')} changed; that takes a restart (\`contactor down && contactor up\`)`,
    );
}
