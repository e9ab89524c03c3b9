/**
 * The `contactor` entry: parse, run one verb, end with its exit code (CONTRACT.md "CLI"). Every failure
 * becomes one clear line on stderr (and, with --json, an `{error}` document on stdout).
 */
import { cliVersion } from './version.js';
import { CommanderError } from 'commander';
import { createRunner } from './context.js';
import { CliError, EXIT } from './exit-codes.js';
import { Output } from './output.js';
import { buildProgram } from './program.js';

export async function main(argv: string[] = process.argv): Promise<number> {
  const state = { exitCode: 0, json: argv.includes('--json') };
  const program = buildProgram(createRunner(state, process.env), cliVersion());
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (err) {
    return report(err, state.json);
  }
}

function report(err: unknown, json: boolean): number {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return EXIT.completed;
    if (json) new Output(true).doc({ error: { message: err.message, exitCode: EXIT.usage } });
    return EXIT.usage;
  }
  const out = new Output(json);
  const cliError = err instanceof CliError ? err : undefined;
  const exitCode = cliError?.exitCode ?? EXIT.failed;
  const message = cliError
    ? cliError.message
    : `unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  out.error(message);
  if (json)
    out.doc({
      error: { message, exitCode, ...(cliError?.rpc ? { code: cliError.rpc.code, data: cliError.rpc.data } : {}) },
    });
  return exitCode;
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

// Not top-level await: the same source is bundled as CommonJS for the desktop app.
void main().then(exit);
