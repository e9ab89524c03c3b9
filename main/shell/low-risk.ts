/**
 * Which permission requests may be answered straight from a toast ("one-click Allow"). Everything else gets
 * "Review…" and the approval window, where the full command is shown.
 *
 * The model is an allow-list twice over: a program must be listed, and every flag it is given must be
 * listed for that program (an unknown flag is never low-risk, so no flag that takes a path is ever one-click),
 * and every path it reads, resolved against the folder the tool call says it runs in, must lie inside the
 * task's workspace and outside the protected folders (low-risk-paths.ts). Programs
 * that can write or run something through an option or an environment hook are not listed at all: `less`
 * (LESSOPEN, `-o`/`--log-file`), `date` (`-s`), `tree` (`-o`, `-R` writes 00Tree.html), `git` (repo config an
 * agent can write runs programs: core.fsmonitor, diff.external, core.pager, filters), `find -exec/-delete`,
 * `file -C` (writes a .mgc), `rg --pre`/`-z` (runs programs). Recursive reads of a folder holding a
 * protected one are refused too.
 *
 * Flag lists follow GNU coreutils 9.5, GNU grep 3.11, GNU findutils 4.10, ripgrep 14.1.1 and file 5.45
 * (their manuals), restricted to options that only select, format or limit what is read.
 */
import { commandOf, type ToolCallSummary } from '../domain/pending.js';
import { pathsAreSafe, workdirOf } from './low-risk-paths.js';

export { protectedHomeDirs } from './low-risk-paths.js';

export interface RiskContext {
  /** The task's workspace; without one, nothing that reads a path is one-click. */
  workspace?: string | undefined;
  /** Folders never read with one click, with everything under them (the data dir, ~/.ssh, …). */
  protectedDirs?: readonly string[];
}

/** Where a command's paths are judged: the workspace, the folder it runs in, the protected folders. */
interface Where {
  workspace: string | undefined;
  cwd: string | undefined;
  protectedDirs: readonly string[];
}

interface ProgramSpec {
  /** Short flags without a value, as letters. */
  short?: string;
  /** Short flags that take a value that is not a path (`-n 5`, `-n5`). */
  shortValue?: string;
  long?: readonly string[];
  /** Long flags that take a value that is not a path (`--max-count=5`, `--max-count 5`). */
  longValue?: readonly string[];
  /**
   * Long flags whose value is optional (getopt_long `optional_argument`): only `--flag=value` gives one,
   * so `--flag` alone never takes the next word.
   */
  optionalValue?: readonly string[];
  /** `-5` as a line count (head/tail). */
  numericFlag?: boolean;
  /** What the positional arguments are: paths, a pattern then paths, program names (`which`), or nothing. */
  positional: 'paths' | 'pattern-then-paths' | 'names' | 'none';
  /** Reads folders recursively without a flag (rg, du); `recursiveFlags` are the flags that make it recursive. */
  recursive?: boolean;
  recursiveFlags?: readonly string[];
}

/** coreutils `head` and `tail` take the same read-only flags; not -f/-F/--follow (never ends), not --pid. */
const HEAD_OR_TAIL: ProgramSpec = {
  short: 'qvz',
  shortValue: 'nc',
  longValue: ['--lines', '--bytes'],
  long: ['--quiet', '--silent', '--verbose'],
  numericFlag: true,
  positional: 'paths',
};

const PROGRAMS: Record<string, ProgramSpec> = {
  // coreutils 9.5 `ls`: listing and formatting only (no --hide/-I patterns, no --color=always hooks).
  ls: {
    short: 'aAlh1tSrdFRisngoGpUvX',
    long: [
      '--all',
      '--almost-all',
      '--human-readable',
      '--directory',
      '--classify',
      '--recursive',
      '--reverse',
      '--inode',
      '--size',
      '--numeric-uid-gid',
    ],
    positional: 'paths',
    recursiveFlags: ['-R', '--recursive'],
  },
  pwd: { short: 'LP', positional: 'none' },
  // coreutils `wc`: not --files0-from=F (a list of paths read from a file).
  wc: { short: 'lwcmL', long: ['--lines', '--words', '--bytes', '--chars', '--max-line-length'], positional: 'paths' },
  cat: {
    short: 'nbAEeTtsv',
    long: ['--number', '--number-nonblank', '--show-all', '--show-ends', '--show-tabs', '--squeeze-blank'],
    positional: 'paths',
  },
  head: HEAD_OR_TAIL,
  tail: HEAD_OR_TAIL,
  stat: {
    short: 'LtF',
    shortValue: 'c',
    longValue: ['--format', '--printf'],
    long: ['--dereference', '--terse'],
    positional: 'paths',
  },
  // `du`: not -L/--dereference (follows links in the workspace out of it; with -a it names what it finds there).
  du: {
    short: 'shacbkmxd0',
    shortValue: 'd',
    longValue: ['--max-depth'],
    long: ['--summarize', '--human-readable', '--all', '--total'],
    positional: 'paths',
    recursive: true,
  },
  df: {
    short: 'hHTiPkla',
    long: ['--human-readable', '--print-type', '--inodes', '--portability', '--local', '--all'],
    positional: 'paths',
  },
  // file 5.45: not -C (compiles and writes a magic file), -m (loads magic from a path), -z/-Z (decompressors), -f (list file).
  file: {
    short: 'bikLhNE0',
    long: ['--brief', '--mime', '--mime-type', '--mime-encoding', '--dereference', '--no-dereference', '--no-pad'],
    positional: 'paths',
  },
  // GNU grep 3.11: not -f/--file (patterns from a path), not --exclude-from; not -R/--dereference-recursive
  // (follows every link it meets, so a link in the workspace leads out) nor -d ACTION (`-d recurse` is -r).
  // --color/--colour take their value only as `--color=WHEN` (an optional argument: `--color x` leaves x
  // as the pattern), so they are listed as plain flags and their `=` form is allowed by `OPTIONAL_VALUE`.
  grep: {
    short: 'iyvwxcLlnHhoqsrEFGPIaUzZ',
    shortValue: 'emABCD',
    long: [
      '--ignore-case',
      '--invert-match',
      '--word-regexp',
      '--line-regexp',
      '--count',
      '--files-with-matches',
      '--files-without-match',
      '--line-number',
      '--with-filename',
      '--no-filename',
      '--only-matching',
      '--quiet',
      '--silent',
      '--no-messages',
      '--recursive',
      '--extended-regexp',
      '--fixed-strings',
      '--basic-regexp',
      '--perl-regexp',
      '--text',
    ],
    longValue: [
      '--regexp',
      '--max-count',
      '--after-context',
      '--before-context',
      '--context',
      '--include',
      '--exclude',
      '--exclude-dir',
    ],
    optionalValue: ['--color', '--colour'],
    positional: 'pattern-then-paths',
    recursiveFlags: ['-r', '--recursive'],
  },
  // ripgrep 14.1.1: not --pre/--pre-glob (runs a program per file), -z/--search-zip (runs decompressors),
  // --ignore-file/--config-path style options (read other files), -L/--follow (leaves the tree by symlinks).
  rg: {
    short: 'iSsvwxcloFnNHIUaqu',
    shortValue: 'emABCgtTMj',
    long: [
      '--ignore-case',
      '--smart-case',
      '--case-sensitive',
      '--invert-match',
      '--word-regexp',
      '--line-regexp',
      '--count',
      '--count-matches',
      '--files-with-matches',
      '--files-without-match',
      '--only-matching',
      '--fixed-strings',
      '--line-number',
      '--no-line-number',
      '--with-filename',
      '--no-filename',
      '--no-heading',
      '--heading',
      '--hidden',
      '--no-ignore',
      '--files',
      '--quiet',
      '--json',
      '--vimgrep',
      '--stats',
      '--multiline',
    ],
    longValue: [
      '--regexp',
      '--max-count',
      '--after-context',
      '--before-context',
      '--context',
      '--glob',
      '--iglob',
      '--type',
      '--type-not',
      '--max-depth',
      '--max-columns',
      '--threads',
      '--sort',
      '--sortr',
      '--color',
    ],
    positional: 'pattern-then-paths',
    recursive: true,
  },
  which: { short: 'a', positional: 'names' },
  whoami: { positional: 'none' },
  uname: { short: 'asnrvmpio', long: ['--all'], positional: 'none' },
};

/** findutils 4.10 `find` tests and actions that only select and print (never -exec, -ok, -delete, -fprint, -fls). */
const FIND_UNARY = new Set([
  '-print',
  '-print0',
  '-empty',
  '-readable',
  '-true',
  '-false',
  '-prune',
  '-depth',
  '-mount',
  '-xdev',
  '-not',
  '-a',
  '-o',
  '-and',
  '-or',
  '!',
  '(',
  ')',
]);
const FIND_VALUED = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-type',
  '-xtype',
  '-maxdepth',
  '-mindepth',
  '-size',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-perm',
  '-user',
  '-group',
  '-links',
]);

const READ_ONLY_KINDS = new Set(['read', 'search']);

/** Anything that chains, redirects, substitutes, expands or escapes: no longer one plain command. */
const SHELL_SYNTAX = /[;&|<>`$(){}\\\n\r*?[\]!'"~%^=]/;

export function isLowRisk(toolCall: ToolCallSummary, context: RiskContext = {}): boolean {
  const command = commandOf(toolCall).trim();
  const kind = toolCall.kind;
  // A working directory that cannot be known here (relative, `~`, `%VAR%`) is never one-click.
  const workdir = workdirOf(toolCall.rawInput);
  if (!workdir) return false;
  // An environment of its own makes any listed program run something else: LD_PRELOAD loads a library
  // into `cat`, RIPGREP_CONFIG_PATH gives `rg` a --pre program.
  if (carriesEnvironment(toolCall.rawInput)) return false;
  const where: Where = {
    workspace: context.workspace,
    cwd: workdir.cwd,
    protectedDirs: context.protectedDirs ?? [],
  };
  if (!command) {
    // A read or search without a command: one-click only when it names what it reads, all inside.
    const paths = (toolCall.locations ?? []).map((l) => l.path);
    return kind !== undefined && READ_ONLY_KINDS.has(kind) && paths.length > 0 && safe(paths, false, where);
  }
  if (kind !== undefined && !READ_ONLY_KINDS.has(kind) && kind !== 'execute') return false;
  return isReadOnlyCommand(command, where);
}

/** The raw input names environment variables for the command (`env`, `environment`, `env_vars`, …), not none. */
function carriesEnvironment(rawInput: unknown): boolean {
  if (!rawInput || typeof rawInput !== 'object') return false;
  return Object.entries(rawInput).some(
    ([key, value]) =>
      /^env(s|ironment)?(_?vars)?$/i.test(key) &&
      value !== undefined &&
      value !== null &&
      !(typeof value === 'object' && Object.keys(value).length === 0) &&
      value !== '',
  );
}

function isReadOnlyCommand(command: string, where: Where): boolean {
  // `=` is allowed only inside a `--flag=value`; the shell check runs on the rest.
  if (/[^\x20-\x7e\u00a0-\uffff]/.test(command)) return false; // line breaks, tabs, control characters
  const words = command.split(/ +/);
  if (words.some((w) => SHELL_SYNTAX.test(w.replace(/^(--[a-z][a-z-]*)=/, '$1 ')))) return false;
  const [program = '', ...args] = words;
  if (program === 'find') return findIsSafe(args, where);
  const spec = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  if (!spec) return false;
  const parsed = parseArgs(args, spec);
  if (!parsed) return false;
  let positional = parsed.positional;
  if (spec.positional === 'none') return positional.length === 0;
  if (spec.positional === 'names') return positional.every((n) => /^[\w.+-]+$/.test(n) && !n.startsWith('-'));
  if (spec.positional === 'pattern-then-paths' && !parsed.patternGiven) {
    if (positional.length === 0) return false;
    positional = positional.slice(1);
  }
  const recursive = spec.recursive === true || parsed.flags.some((f) => spec.recursiveFlags?.includes(f));
  // No path: the program reads the folder it runs in.
  return safe(positional.length ? positional : ['.'], recursive, where);
}

interface ParsedArgs {
  flags: string[];
  positional: string[];
  /** A pattern came through -e/--regexp, so every positional is a path. */
  patternGiven: boolean;
}

function parseArgs(args: readonly string[], spec: ProgramSpec): ParsedArgs | undefined {
  const flags: string[] = [];
  const positional: string[] = [];
  let patternGiven = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [name, value] = arg.split('=', 2) as [string, string | undefined];
      if (spec.long?.includes(name) && value === undefined) flags.push(name);
      else if (spec.optionalValue?.includes(name)) flags.push(name);
      else if (spec.longValue?.includes(name)) {
        flags.push(name);
        if (value === undefined) i += 1;
        if (name === '--regexp') patternGiven = true;
      } else return undefined;
    } else if (arg.startsWith('-') && arg.length > 1) {
      if (spec.numericFlag && /^-\d+$/.test(arg)) continue;
      for (let j = 1; j < arg.length; j += 1) {
        const letter = arg[j]!;
        if (spec.shortValue?.includes(letter)) {
          flags.push(`-${letter}`);
          if (letter === 'e') patternGiven = true;
          if (j === arg.length - 1) i += 1; // the value is the next word
          break;
        }
        if (!spec.short?.includes(letter)) return undefined;
        flags.push(`-${letter}`);
      }
    } else positional.push(arg);
  }
  return { flags, positional, patternGiven };
}

function findIsSafe(args: readonly string[], where: Where): boolean {
  const paths: string[] = [];
  let i = 0;
  while (i < args.length && !args[i]!.startsWith('-') && args[i] !== '!' && args[i] !== '(') paths.push(args[i++]!);
  for (; i < args.length; i += 1) {
    const arg = args[i]!;
    if (FIND_UNARY.has(arg)) continue;
    if (FIND_VALUED.has(arg) && i + 1 < args.length) {
      i += 1;
      continue;
    }
    return false;
  }
  return safe(paths.length ? paths : ['.'], true, where);
}

function safe(paths: readonly string[], recursive: boolean, where: Where): boolean {
  if (!where.workspace) return false;
  return pathsAreSafe(paths, {
    workspace: where.workspace,
    cwd: where.cwd,
    protectedDirs: where.protectedDirs,
    recursive,
  });
}
