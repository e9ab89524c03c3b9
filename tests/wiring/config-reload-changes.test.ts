/**
 * A reload says what it changed: the agents added, changed (with the settings that changed) and removed,
 * in the log line itself and in what `contactor reload` prints, also when the bridge's watcher applied the
 * saved edit before `reload` ran (main/wiring/config-reload.ts, main/cli/commands/reload.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { whatChanged } from '../../main/cli/commands/reload.js';
import { parseConfigText } from '../../main/config/config.js';
import { AgentRegistry, type AgentSettings } from '../../main/runtime/registry.js';
import { ConfigReloader } from '../../main/wiring/config-reload.js';
import { scripted } from '../fixtures/fake-backends.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS: AgentSettings = {
  timeoutMs: 1000,
  approvalTimeoutMs: 1000,
  approvalRules: [],
  appendDecisionContract: false,
  maxQueue: 8,
  skills: [],
  tags: [],
};

describe('what a config reload changed', () => {
  it('names added agents, and the settings of a changed one, in the log line and in `reload`', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'contactor-reload-changes-'));
    const configPath = path.join(dir, 'config.yaml');
    const text = (agents: Record<string, unknown>) => stringify({ port: 0, agents });
    const helper = { kind: 'subprocess_cli', command: ['helper'] };
    writeFileSync(configPath, text({ helper, old: helper }));
    const registry = new AgentRegistry();
    registry.add('helper', scripted(['ok']), SETTINGS);
    registry.add('old', scripted(['ok']), SETTINGS);
    const logged: string[] = [];
    const reloader = new ConfigReloader({
      path: configPath,
      vars: {},
      started: parseConfigText(text({ helper, old: helper }), configPath, {}),
      registry,
      backends: [],
      createBackend: () => scripted(['ok']),
      settingsOf: () => SETTINGS,
      applyLive: () => undefined,
      log: { info: (_d, message) => logged.push(message), warn: () => undefined, error: () => undefined },
    });

    writeFileSync(
      configPath,
      text({
        helper: { ...helper, env: { MODE: 'fast' }, description: 'helps' },
        a1: helper,
        a2: helper,
      }),
    );
    const applied = reloader.reload();
    expect(logged).toEqual(['config reloaded: added a1, a2; changed helper (description, env); removed old']);
    expect(whatChanged(applied)).toBe('added a1, a2; changed helper (description, env); removed old');

    // `contactor reload` after the watcher applied it: nothing new, and what the edit did.
    const again = reloader.reload();
    expect(whatChanged({ ...again, lastChanges: { ...again.lastChanges!, at: '2026-12-03T10:00:00.000Z' } })).toBe(
      'nothing new; the bridge applied the saved edit at 2026-12-03T10:00:00.000Z: added a1, a2; changed helper (description, env); removed old',
    );
    expect(logged[1]).toBe('config reloaded: no agent changed');
  });
});
