import { commandOf, type ToolCallSummary } from '../domain/pending.js';
import { RecentMap } from './recent-keys.js';

/** A standing rule from config; the first rule that matches decides. */
export interface ApprovalRule {
  action: 'allow' | 'deny' | 'ask';
  kinds?: string[];
  command?: string;
  paths?: string[];
}

/**
 * Whether a tool call's location lies in a rule's folder. The runtime never decides that itself: the wiring
 * hands in main/platform/path-containment.ts (SECURITY.md#what-the-bridge-guarantees: paths are compared as
 * real paths), which knows Windows and POSIX rules and follows symlinks.
 */
export interface PathJudge {
  /** The location as written and its real path both lie inside: what an `allow` rule needs. */
  surelyInside(folder: string, location: string): boolean;
  /** Either of them lies inside, or the location cannot be placed (relative): enough for `deny` and `ask`. */
  maybeInside(folder: string, location: string): boolean;
}

export interface RuleVerdict {
  action: 'allow' | 'deny' | 'ask';
  /** 0-based index in the agent's approval_rules, for the record on the task. */
  rule: number;
}

/**
 * Matches on what the tool call really does — its kind, raw command and paths — never on the agent's
 * free-text title, which some agents make generic ("Run command"). Every condition a rule names must
 * hold; a rule with no conditions matches everything. A rule's `paths` hold when every location lies in one of
 * them, judged by `judge`: strictly for an allow (a sibling folder `/work/app-secrets`, a `..` climb or a symlink
 * leading out never counts as inside `/work/app`), leniently for a deny or an ask, so a path written around a
 * deny is still denied. Without a judge an allow's paths never hold and a deny's or ask's always do.
 */
export function matchRule(
  rules: readonly ApprovalRule[],
  toolCall: ToolCallSummary,
  judge?: PathJudge,
): RuleVerdict | undefined {
  for (const [index, rule] of rules.entries()) {
    if (rule.kinds && !(toolCall.kind && rule.kinds.includes(toolCall.kind))) continue;
    if (rule.command !== undefined && !safeRegex(rule.command).test(commandText(toolCall))) continue;
    if (rule.paths) {
      const locations = toolCall.locations ?? [];
      if (locations.length === 0) continue;
      const folders = rule.paths;
      const inside =
        rule.action === 'allow'
          ? (folder: string, location: string) => judge?.surelyInside(folder, location) ?? false
          : (folder: string, location: string) => judge?.maybeInside(folder, location) ?? true;
      if (!locations.every((l) => folders.some((folder) => inside(folder, l.path)))) continue;
    }
    return { action: rule.action, rule: index };
  }
  return undefined;
}

/** The command, or for tools without one the raw input as JSON, so a rule can still match paths in it. */
function commandText(toolCall: ToolCallSummary): string {
  return commandOf(toolCall) || (toolCall.rawInput === undefined ? '' : JSON.stringify(toolCall.rawInput));
}

/**
 * Compiled `command` patterns, by source. Sources come from config, but a config edited and reloaded for
 * weeks would otherwise keep every pattern it ever held: the most recently used are kept.
 */
export const COMPILED_PATTERNS = 256;
const compiled = new RecentMap<RegExp>(COMPILED_PATTERNS);

/** How many compiled patterns are kept (for the test of the bound). */
export function compiledPatternCount(): number {
  return compiled.size;
}

function safeRegex(source: string): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = new RegExp(source);
    compiled.set(source, re);
  }
  return re;
}
