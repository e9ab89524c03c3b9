/**
 * What shell completion offers, read from commander's own command tree, so a new verb or option is
 * completed without anyone touching the scripts (completion-scripts.ts).
 */
import type { Command } from 'commander';

export interface Verb {
  name: string;
  /** Long and short flags, e.g. `--json`, `-n`. */
  options: string[];
  /** Its own verbs (`token rotate`, `config path`). */
  verbs: string[];
  /** Its first argument is an agent name (completed from the config). */
  takesAgent: boolean;
}

export interface CompletionTree {
  /** The options before a verb (`--version` too). */
  topLevel: string[];
  /** The options every verb takes as well (`--json`, `-c`). */
  global: string[];
  /** Global options followed by a value: the word after them is not a verb. */
  globalWithValue: string[];
  verbs: Verb[];
}

/** The verbs not offered: the hidden helper the scripts call for agent names. */
export const AGENTS_HELPER = '__complete-agents';

function flagsOf(command: Command, except = ''): string[] {
  return command.options
    .filter((o) => o.long !== except)
    .flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
}

export function completionTree(program: Command): CompletionTree {
  const verbs = program.commands
    .filter((c) => c.name() !== AGENTS_HELPER)
    .map((c) => ({
      name: c.name(),
      options: [...flagsOf(c), '--help'],
      verbs: c.commands.map((s) => s.name()),
      takesAgent: c.registeredArguments[0]?.name() === 'agent',
    }));
  // Commander takes --version before a verb only.
  const global = flagsOf(program, '--version');
  const topLevel = [...flagsOf(program), '--help'];
  const globalWithValue = program.options
    .filter((o) => o.required || o.optional)
    .flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
  return { topLevel, global, globalWithValue, verbs };
}
