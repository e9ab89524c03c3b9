/**
 * What a config edit would let agents (or callers) do that the config in use does not: an added agent, a
 * changed command, environment, working roots, capabilities or approval rules, a wider listening address or
 * a dropped token. Anything not known to be harmless counts, so a key added later counts until it is listed
 * here. The config reload holds such an edit back when an agent wrote it (wiring/config-reload.ts).
 */
import type { BridgeConfig } from '../schema/config.js';

/** Agent keys whose change never lets the agent do more: what it is called, how long it may take, its queue. */
const HARMLESS_AGENT_KEYS = new Set(['description', 'skills', 'tags', 'timeout_s', 'approval_timeout_s', 'max_queue']);

/** Top-level keys whose change only bounds work the bridge already does. */
const HARMLESS_TOP_KEYS = new Set(['agents', 'max_delegation_depth', 'max_concurrent_tasks', 'history']);

/** One line per widening change ("adds agent \"x\"", "changes agent \"y\": command, env"); empty when none. */
export function wideningChanges(before: BridgeConfig, after: BridgeConfig): string[] {
  const changes: string[] = [];
  for (const [name, next] of Object.entries(after.agents)) {
    const old = before.agents[name] as Record<string, unknown> | undefined;
    if (!old) {
      changes.push(`adds agent "${name}"`);
      continue;
    }
    const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
    const changed = [...keys].filter(
      (key) => !HARMLESS_AGENT_KEYS.has(key) && !same(old[key], (next as Record<string, unknown>)[key]),
    );
    if (changed.length) changes.push(`changes agent "${name}": ${changed.join(', ')}`);
  }
  const top = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changedTop = [...top].filter(
    (key) =>
      !HARMLESS_TOP_KEYS.has(key) &&
      !same((before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key]),
  );
  if (changedTop.length) changes.push(`changes ${changedTop.join(', ')}`);
  return changes;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
