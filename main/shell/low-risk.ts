/**
 * Which permission requests may be answered straight from a toast. A one-click Allow on a toast is only
 * offered for things that cannot change anything: reading and searching, and a short list of read-only
 * commands with no shell syntax at all. Everything else gets "Review…" and the approval window, where the
 * full command is shown. The list is an allow-list on purpose: an unknown command is never low-risk.
 */
import { commandOf, type ToolCallSummary } from '../domain/pending.js';

const READ_ONLY_KINDS = new Set(['read', 'search']);

/** Programs that only read, whatever their (metacharacter-free) arguments. */
const READ_ONLY_PROGRAMS = new Set([
  'ls', 'dir', 'cat', 'head', 'tail', 'less', 'wc', 'pwd', 'grep', 'rg', 'tree', 'stat', 'file', 'which',
  'du', 'df', 'whoami', 'date', 'uname', 'echo', 'type',
]); // prettier-ignore

/** Arguments that make an otherwise read-only program write or execute. */
const WRITING_FLAGS: Record<string, RegExp> = {
  find: /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/,
  git: /^--output(=|$)/,
};

/** `git <sub>` that only read, with their own extra guards. */
const READ_ONLY_GIT = new Set([
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'rev-parse',
  'ls-files',
  'describe',
  'shortlog',
]);

/** Anything that chains, redirects, substitutes or escapes: the string is no longer one plain command. */
const SHELL_SYNTAX = /[;&|<>`$(){}\\\n\r*?[\]!'"]/;

export function isLowRisk(toolCall: ToolCallSummary): boolean {
  const command = commandOf(toolCall).trim();
  if (!command) return toolCall.kind !== undefined && READ_ONLY_KINDS.has(toolCall.kind);
  if (toolCall.kind !== undefined && !READ_ONLY_KINDS.has(toolCall.kind) && toolCall.kind !== 'execute') return false;
  return isReadOnlyCommand(command);
}

function isReadOnlyCommand(command: string): boolean {
  if (SHELL_SYNTAX.test(command)) return false;
  const [program = '', ...args] = command.split(/\s+/);
  const flags = WRITING_FLAGS[program];
  if (flags && args.some((a) => flags.test(a))) return false;
  if (program === 'find') return true;
  if (program === 'git') return isReadOnlyGit(args);
  return READ_ONLY_PROGRAMS.has(program);
}

function isReadOnlyGit(args: string[]): boolean {
  // `git -C dir status` etc.: global options before the subcommand could point at hooks or aliases.
  const [sub = '', ...rest] = args;
  if (READ_ONLY_GIT.has(sub)) return true;
  if (sub === 'branch' || sub === 'tag' || sub === 'remote')
    return rest.every((a) => /^(-a|-r|-v|-vv|--list|--all)$/.test(a));
  return false;
}
