/** The `contactor` command line: shared options, every verb, and the exit codes in --help. */
import { Command } from 'commander';
import { auditCommand } from './commands/audit.js';
import { logsCommand } from './commands/logs.js';
import { registerAcp } from './commands/acp.js';
import { registerAgents } from './commands/agents.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDoctor } from './commands/doctor.js';
import { registerHelp } from './commands/help.js';
import { registerLifecycle } from './commands/lifecycle.js';
import { registerListings } from './commands/listing.js';
import { registerMcp } from './commands/mcp.js';
import { registerProbe } from './commands/probe.js';
import { registerReload } from './commands/reload.js';
import { registerSend } from './commands/send.js';
import { registerSetup } from './commands/setup.js';
import { registerStatus } from './commands/status.js';
import { registerStdio } from './commands/stdio.js';
import { registerTaskVerbs } from './commands/task-verbs.js';
import { registerToken } from './commands/token.js';
import { registerTop } from './commands/top.js';
import { registerWatch } from './commands/watch.js';
import type { Runner } from './context.js';
import { EXIT_HELP } from './exit-codes.js';

export function buildProgram(run: Runner, version: string): Command {
  const program = new Command('contactor')
    .description('Hand work to the coding agents on this machine through the local contactor bridge.')
    .version(version)
    .option('-c, --config <file>', 'config file (default: the platform config dir, or CONTACTOR_CONFIG)')
    .option('--data-dir <dir>', "the bridge's data dir (default: the config's data_dir, else the platform default)")
    .option('--json', 'print exactly one JSON document on stdout')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_HELP)
    // Before the verbs are added, so they inherit it: usage errors end in exit 2, not process.exit(1).
    .exitOverride();
  registerLifecycle(program, run);
  registerStatus(program, run);
  registerReload(program, run);
  registerAgents(program, run);
  registerSend(program, run);
  registerMcp(program, run);
  registerTaskVerbs(program, run);
  registerWatch(program, run);
  registerTop(program, run);
  registerListings(program, run);
  registerToken(program, run);
  registerConfig(program, run);
  registerDoctor(program, run);
  registerProbe(program, run);
  registerSetup(program, run);
  registerStdio(program, run);
  registerAcp(program, run);
  program
    .command('audit')
    .description('the last entries of the audit log (works with the bridge down)')
    .option('-n, --lines <n>', 'how many entries', '20')
    .action(run(auditCommand));
  program
    .command('logs')
    .description("an agent's own stderr as the bridge kept it, redacted (works with the bridge down)")
    .argument('<agent>', 'the agent name in config.yaml')
    .option('-n, --lines <n>', 'how many lines', '50')
    .option('-f, --follow', 'keep printing what the agent writes')
    .action(run(logsCommand));
  registerCompletion(program, run);
  registerHelp(program, run);
  return program;
}
