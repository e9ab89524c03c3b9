/**
 * The CLI's exit codes (docs/contract.md#cli) and the one error type its commands throw: a message a person
 * can act on, and the code the process ends with.
 */
import type { TaskState } from '../domain/task.js';

export const EXIT = {
  completed: 0,
  failed: 1,
  usage: 2,
  waiting: 3,
  stopped: 4,
  unreachable: 5,
  unauthorized: 6,
  /** Ctrl-C (128 + SIGINT's number, as shells report it); SIGTERM and SIGHUP end 143 and 129. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_HELP = `
Exit codes:
  0  completed
  1  task failed (see metadata.retryable), or a client-side --timeout ran out
  2  bad usage or config (unknown agent, bad flag, invalid config.yaml, a port another bridge holds), or \`doctor\` found a problem
  3  waiting for input (input-required / auth-required): \`contactor pending\`, then \`contactor answer\`
  4  canceled or rejected (a delegation loop or depth limit is a rejection)
  5  bridge unreachable: \`contactor up\`, then repeat the command (same --message-id)
  6  unauthorized: the token is wrong; \`contactor doctor\`
  130  interrupted (Ctrl-C): \`send\` canceled the task it started (\`--detach\`: left it running),
       \`watch\` stopped watching

Environment:
  CONTACTOR_URL, CONTACTOR_TOKEN   talk to this bridge instead of the one in the discovery file
  CONTACTOR_CONFIG                 config file (like -c)
  NO_COLOR                         no colours`;

/** What a task's state means for the exit code of a command that waited for it. */
export function exitForState(state: TaskState | 'unknown'): ExitCode {
  switch (state) {
    case 'completed':
      return EXIT.completed;
    case 'input-required':
    case 'auth-required':
      return EXIT.waiting;
    case 'canceled':
    case 'rejected':
      return EXIT.stopped;
    case 'failed':
    case 'unknown':
      return EXIT.failed;
    case 'submitted':
    case 'working':
      return EXIT.completed;
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** JSON-RPC error codes (docs/contract.md#error-codes) that mean the caller asked for something wrong. */
const USAGE_CODES = new Set([
  -32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32009, -32060, -32061, -32062, -32063,
]);

export function exitForRpcCode(code: number): ExitCode {
  if (code === -32066) return EXIT.unauthorized;
  return USAGE_CODES.has(code) ? EXIT.usage : EXIT.failed;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly rpc?: { code: number; data?: unknown },
  ) {
    super(message);
    this.name = 'CliError';
  }
}
