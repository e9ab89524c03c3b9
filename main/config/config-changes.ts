/**
 * What a config reload changed, in the words the bridge's log, `contactor reload` and `status` use: the
 * agents added, changed (with the settings that changed) and removed.
 */
import type { AgentConfig } from '../schema/config.js';

export interface ConfigChanges {
  added: string[];
  changed: string[];
  removed: string[];
  /** For each changed agent, its settings that differ (`env`, `description`, `command`, ...). */
  changedSettings: Record<string, string[]>;
}

/** The top-level settings of an agent whose values differ between two definitions. */
export function changedSettingsOf(before: AgentConfig, after: AgentConfig): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key])).sort();
}

export function hasChanges(changes: ConfigChanges): boolean {
  return changes.added.length + changes.changed.length + changes.removed.length > 0;
}

/** `added a, b; changed c (env, description); removed d`, or '' when nothing changed. */
export function describeChanges(changes: ConfigChanges): string {
  const changed = changes.changed.map((name) => {
    const settings = changes.changedSettings[name] ?? [];
    return settings.length ? `${name} (${settings.join(', ')})` : name;
  });
  return [
    changes.added.length ? `added ${changes.added.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
    changes.removed.length ? `removed ${changes.removed.join(', ')}` : '',
  ]
    .filter((part) => part !== '')
    .join('; ');
}
