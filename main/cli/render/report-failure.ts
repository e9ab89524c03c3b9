/**
 * How a failed run ends: one clear line on stderr, the exit code, and with --json an `{error}` document
 * on stdout — unless the command already printed its document before failing, since `--json` promises
 * exactly one (docs/contract.md#cli); the stderr line and the exit code still say it failed.
 */
import { CommanderError } from 'commander';
import { CliError, EXIT } from '../exit-codes.js';
import type { Output } from './output.js';

export function reportFailure(err: unknown, out: Output): number {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return EXIT.completed;
    // Commander has already written its own message to stderr.
    if (out.json && !out.printedDocument) out.doc({ error: { message: err.message, exitCode: EXIT.usage } });
    return EXIT.usage;
  }
  const cliError = err instanceof CliError ? err : undefined;
  const exitCode = cliError?.exitCode ?? EXIT.failed;
  const message = cliError
    ? cliError.message
    : `unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  out.error(message);
  if (out.json && !out.printedDocument) {
    out.doc({
      error: { message, exitCode, ...(cliError?.rpc ? { code: cliError.rpc.code, data: cliError.rpc.data } : {}) },
    });
  }
  return exitCode;
}
