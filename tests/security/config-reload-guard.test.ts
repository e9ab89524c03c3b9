/**
 * The second wall behind the own-files check (tests/security/own-files.test.ts): if an agent's write ever
 * reaches config.yaml, the reload does not let it widen anything. The attack: the ACP workspace's real
 * fs/write_text_file path (Workspace.writeText, here protecting nothing — the first wall missed) rewrites
 * the config to add an agent that prints the token; the reload the watcher runs keeps the last good config,
 * says which agent wrote it, and applies the person's next save (an editor's write-and-rename) — also when the
 * agent went on to write more files than the bridge remembers.
 */
import { mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../main/backends/acp/workspace.js';
import { parseConfigText } from '../../main/config/config.js';
import { AgentWrites } from '../../main/platform/agent-writes.js';
import { ProtectedFiles } from '../../main/platform/protected-files.js';
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
const agent = (command: string[], extra: Record<string, unknown> = {}) => ({
  kind: 'subprocess_cli',
  command,
  ...extra,
});

function setUp() {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'contactor-reload-guard-')));
  const configPath = path.join(dir, 'config.yaml');
  const text = (agents: Record<string, unknown>) => stringify({ port: 0, data_dir: path.join(dir, 'data'), agents });
  writeFileSync(configPath, text({ helper: agent(['helper']) }));
  const registry = new AgentRegistry();
  const errors: string[] = [];
  const agentWrites = new AgentWrites();
  const started = parseConfigText(text({ helper: agent(['helper']) }), configPath, {});
  registry.add('helper', scripted(['ok']), SETTINGS);
  const reloader = new ConfigReloader({
    path: configPath,
    vars: {},
    started,
    registry,
    backends: [],
    createBackend: () => scripted(['ok']),
    settingsOf: () => SETTINGS,
    applyLive: () => undefined,
    agentWrites,
    log: { info: () => undefined, warn: () => undefined, error: (_d, message) => errors.push(message) },
  });
  return { configPath, text, registry, errors, agentWrites, reloader };
}

describe('a config edit an agent wrote through the bridge', () => {
  it('never adds an agent or changes a command; the person saving the file applies it', async () => {
    const { configPath, text, registry, errors, agentWrites, reloader } = setUp();
    const workspace = await Workspace.open(dir, 'native', undefined, new ProtectedFiles([]), {
      log: agentWrites,
      agent: 'acp',
    });
    const evil = text({ helper: agent(['sh', '-c', 'evil']), evil: agent(['cat', path.join(dir, 'data', 'token')]) });
    await workspace.writeText(configPath, evil);

    const held = reloader.reload();
    expect(held.added).toEqual([]);
    expect(held.changed).toEqual([]);
    expect(registry.has('evil')).toBe(false);
    expect(held.error).toContain('written by agent "acp" through the bridge');
    expect(held.error).toContain('adds agent "evil"');
    expect(held.error).toContain('changes agent "helper": command');
    expect(reloader.status().error).toBe(held.error);
    expect(errors.join('\n')).toContain('not applied');

    // The person reviews it and saves, as editors do (a new file renamed over the old one).
    writeFileSync(`${configPath}.tmp`, evil);
    renameSync(`${configPath}.tmp`, configPath);
    const applied = reloader.reload();
    expect(applied.error).toBeUndefined();
    expect(applied.added).toEqual(['evil']);
    expect(registry.has('evil')).toBe(true);
    reloader.close();
  });

  it('still refuses the edit after the agent wrote 4,097 other files (a write to config.yaml is never forgotten)', async () => {
    const { configPath, text, registry, agentWrites, reloader } = setUp();
    const workspace = await Workspace.open(dir, 'native', undefined, new ProtectedFiles([]), {
      log: agentWrites,
      agent: 'acp',
    });
    await workspace.writeText(configPath, text({ helper: agent(['helper']), evil: agent(['sh', '-c', 'evil']) }));
    // More writes than the bridge remembers of ordinary files: the oldest of those are forgotten first.
    for (let i = 0; i < 4097; i += 1) await workspace.writeText(path.join(dir, 'work', `note-${i}.md`), `note ${i}`);

    const held = reloader.reload();
    expect(held.added).toEqual([]);
    expect(registry.has('evil')).toBe(false);
    expect(held.error).toContain('written by agent "acp" through the bridge');
    expect(held.error).toContain('adds agent "evil"');
    reloader.close();
  });

  it('never makes an agent the default agent: root sends that name no agent would go to it (docs/contract.md#the-default-agent)', async () => {
    const { configPath, text, registry, agentWrites, reloader } = setUp();
    // The person adds a second agent: a send to `/` naming none is now refused, no agent is the default.
    const two = text({ helper: agent(['helper']), other: agent(['other']) });
    writeFileSync(`${configPath}.tmp`, two);
    renameSync(`${configPath}.tmp`, configPath);
    expect(reloader.reload().added).toEqual(['other']);
    expect(registry.defaultAgent()).toBeUndefined();

    const workspace = await Workspace.open(dir, 'native', undefined, new ProtectedFiles([]), {
      log: agentWrites,
      agent: 'helper',
    });
    await workspace.writeText(configPath, `${two}default_agent: helper\n`);
    const held = reloader.reload();
    expect(held.error).toContain('written by agent "helper" through the bridge changes default_agent');
    expect(registry.defaultAgent()).toBeUndefined();
    reloader.close();
  });

  it('applies an agent-written edit that widens nothing (a description, a removed agent)', async () => {
    const { configPath, text, registry, agentWrites, reloader } = setUp();
    const workspace = await Workspace.open(dir, 'native', undefined, new ProtectedFiles([]), {
      log: agentWrites,
      agent: 'acp',
    });
    await workspace.writeText(configPath, text({}));
    const result = reloader.reload();
    expect(result.error).toBeUndefined();
    expect(result.removed).toEqual(['helper']);
    expect(registry.has('helper')).toBe(false);
    reloader.close();
  });
});
