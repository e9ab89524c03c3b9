import { commandOf, type ToolCallSummary } from '../domain/pending.js';

/** A standing rule from config; the first rule that matches decides. */
export interface ApprovalRule {
  action: 'allow' | 'deny' | 'ask';
  kinds?: string[];
  command?: string;
  paths?: string[];
}

export interface RuleVerdict {
  action: 'allow' | 'deny' | 'ask';
  /** 0-based index in the agent's approval_rules, for the record on the task. */
  rule: number;
}

/**
 * Matches on what the tool call really does — its kind, raw command and paths — never on the agent's
 * free-text title, which some agents make generic ("Run command"). Every condition a rule names must
 * hold; a rule with no conditions matches everything.
 */
export function matchRule(rules: readonly ApprovalRule[], toolCall: ToolCallSummary): RuleVerdict | undefined {
  for (const [index, rule] of rules.entries()) {
    if (rule.kinds && !(toolCall.kind && rule.kinds.includes(toolCall.kind))) continue;
    if (rule.command !== undefined && !safeRegex(rule.command).test(commandText(toolCall))) continue;
    if (rule.paths) {
      const locations = toolCall.locations ?? [];
      if (locations.length === 0) continue;
      const inside = locations.every((l) => rule.paths!.some((p) => normalise(l.path).startsWith(normalise(p))));
      if (!inside) continue;
    }
    return { action: rule.action, rule: index };
  }
  return undefined;
}

/** The command, or for tools without one the raw input as JSON, so a rule can still match paths in it. */
function commandText(toolCall: ToolCallSummary): string {
  return commandOf(toolCall) || (toolCall.rawInput === undefined ? '' : JSON.stringify(toolCall.rawInput));
}

function normalise(path: string): string {
  return path.replace(/\\/g, '/').toLowerCase();
}

const compiled = new Map<string, RegExp>();
function safeRegex(source: string): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = new RegExp(source);
    compiled.set(source, re);
  }
  return re;
}
