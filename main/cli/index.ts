/**
 * The `contactor` entry: parse, run one verb, end with its exit code (docs/contract.md#cli). Every failure
 * becomes one clear line on stderr (and, with --json, an `{error}` document on stdout).
 */
import { cliVersion } from './version.js';
import { createRunner, type RunState } from './context.js';
import { Output } from './render/output.js';
import { buildProgram } from './program.js';
import { reportFailure } from './render/report-failure.js';
import { listenForConsoleEvents } from './console-events.js';
import { listenForLauncherSignals } from './launcher-signals.js';

export async function main(argv: string[] = process.argv): Promise<number> {
  const state: RunState = { exitCode: 0, json: argv.includes('--json') };
  const program = buildProgram(createRunner(state, process.env), cliVersion());
  try {
    // Bare `contactor` is asking what it can do: the help, on stdout, exit 0 (not a usage error).
    if (argv.length <= 2) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (err) {
    // The command's own output, when it got that far: it knows whether its document is out already.
    return reportFailure(err, state.out ?? new Output(state.json));
  }
}

/** Ends the process once stdout and stderr have drained, so a piped reader gets everything. */
function exit(code: number): void {
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
});

// Ctrl-C through the Windows launcher; first, so the bridge and agents this run starts never see the pipe.
listenForConsoleEvents();
// Signals bin/contactor.js passes on when it relaunched the CLI on the pinned Node: before any verb listens.
listenForLauncherSignals();
// Not top-level await: the same source is bundled as CommonJS for the desktop app.
void main().then(exit);
