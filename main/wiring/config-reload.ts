/**
 * Applies config.yaml edits to a running bridge (README.md#configuration): agents added, changed or removed take
 * effect without a restart. A changed agent gets a new backend for new work while the old one finishes
 * what it started (its running turns, an ACP process's live sessions and open questions) and is closed
 * once idle; a removed agent's queued tasks fail as retryable (turn-runner). An edit that does not
 * validate changes nothing: the last good config stays and the error (file:line: key) is kept for
 * `status`, `doctor`, the tray and the log. Part of wiring: it constructs backends.
 */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError, parseConfigText } from '../config/config.js';
import { changedSettingsOf, describeChanges, hasChanges, type ConfigChanges } from '../config/config-changes.js';
import { wideningChanges } from '../config/config-widening.js';
import { watchConfigFile } from '../config/config-watch.js';
import type { AgentWrites } from '../platform/agent-writes.js';
import type { AgentBackend } from '../ports.js';
import type { AgentEntry, AgentRegistry, AgentSettings } from '../runtime/registry.js';
import type { AgentConfig, BridgeConfig } from '../schema/config.js';

/** Keys read once at start: a change is reported, and applies after a restart. */
const RESTART_KEYS = [
  'host',
  'port',
  'data_dir',
  'require_token',
  'max_body_bytes',
  'allowed_origins',
  'rate_limit_per_minute',
] as const;

export interface ConfigState {
  path: string;
  /** When the config in use was read (at start, or by the latest reload that applied). */
  loadedAt: string;
  /** Why the file's current content is not in use (`file:line: key: problem`); absent when it is. */
  error?: string;
  /** Keys whose edits wait for a restart. */
  restartNeeded: string[];
  /**
   * What the latest reload that changed agents changed, and when: a saved edit is applied by the
   * watcher, so a `contactor reload` after it finds nothing new and says what the edit did instead.
   */
  lastChanges?: ConfigChanges & { at: string };
}

export interface ReloadResult extends ConfigState, ConfigChanges {}

export interface ConfigReloaderOptions {
  path: string;
  /** ${VAR} values, as at start. */
  vars: Record<string, string | undefined>;
  started: BridgeConfig;
  registry: AgentRegistry;
  /** Every backend the server must close at shutdown; retired ones leave it once closed. */
  backends: AgentBackend[];
  createBackend(name: string, agent: AgentConfig): AgentBackend;
  settingsOf(name: string, agent: AgentConfig, config: BridgeConfig): AgentSettings;
  /** Live settings outside the agents (max_delegation_depth, max_concurrent_tasks, history). */
  applyLive(config: BridgeConfig): void;
  /** The writes the bridge served to agents: an edit whose latest writer is an agent may not widen anything. */
  agentWrites?: AgentWrites;
  log: {
    info(details: Record<string, unknown>, message: string): void;
    warn(details: Record<string, unknown>, message: string): void;
    error(details: Record<string, unknown>, message: string): void;
  };
  /** Told after every reload attempt (the tray redraws). */
  onChange?: (state: ConfigState) => void;
}

const RETIRE_POLL_MS = 500;
const NO_CHANGES: ConfigChanges = { added: [], changed: [], removed: [], changedSettings: {} };

export class ConfigReloader {
  private current: BridgeConfig;
  private text: string | undefined;
  private state: ConfigState;
  private readonly retiring = new Set<ReturnType<typeof setInterval>>();
  private stopWatching: (() => void) | undefined;

  constructor(private readonly opts: ConfigReloaderOptions) {
    this.current = opts.started;
    // Its writes to this file are the ones agentThatWroteLast asks about: never to be forgotten.
    opts.agentWrites?.protect(opts.path);
    this.text = readText(opts.path);
    this.state = { path: opts.path, loadedAt: new Date().toISOString(), restartNeeded: [] };
  }

  status(): ConfigState {
    return { ...this.state, restartNeeded: [...this.state.restartNeeded] };
  }

  /** Watches the file; an edit is applied within a couple of seconds. */
  watch(): void {
    this.stopWatching ??= watchConfigFile(this.opts.path, () => {
      if (readText(this.opts.path) === this.text) return;
      // Nothing an edit contains may stop the bridge from a timer callback (an uncaught throw there exits).
      try {
        this.reload();
      } catch (err) {
        this.opts.log.error(
          { config: this.opts.path, err },
          'applying the config edit failed — keeping the last good config',
        );
      }
    });
  }

  close(): void {
    this.stopWatching?.();
    for (const timer of this.retiring) clearInterval(timer);
    this.retiring.clear();
  }

  /** Reads the file and applies it, or keeps the last good config and records why not. */
  reload(): ReloadResult {
    const text = readText(this.opts.path);
    this.text = text;
    let next: BridgeConfig;
    try {
      if (text === undefined) throw new ConfigError(`${this.opts.path}: the file is gone (moved or deleted)`);
      next = parseConfigText(text, this.opts.path, this.opts.vars);
    } catch (err) {
      // Any error, not only the ones the loader foresaw: the last good config stays.
      const message = err instanceof ConfigError ? err.message : `${this.opts.path}: ${(err as Error).message}`;
      this.state = { ...this.state, error: message };
      this.opts.log.error({ config: this.opts.path }, `${message} — keeping the last good config`);
      this.opts.onChange?.(this.status());
      return { ...this.status(), ...NO_CHANGES };
    }
    const widening = wideningChanges(this.current, next);
    const writer = widening.length > 0 ? this.agentThatWroteLast() : undefined;
    if (writer !== undefined) {
      // The file's latest change is an agent's write, served by this bridge: applying it would let an agent
      // grant itself (or another) a command, an environment or roots the person never gave.
      const message = `${this.opts.path}: an edit written by agent "${writer}" through the bridge ${widening.join('; ')} — not applied, the last good config stays; check the file and save it yourself to apply it`;
      this.state = { ...this.state, error: message };
      // The person's save of the very same text must still be read: the watcher compares text.
      this.text = undefined;
      this.opts.log.error({ config: this.opts.path, agent: writer, widening }, message);
      this.opts.onChange?.(this.status());
      return { ...this.status(), ...NO_CHANGES };
    }
    if (widening.length > 0) this.opts.log.warn({ widening }, `config edit widens: ${widening.join('; ')}`);
    const result = this.apply(next);
    this.opts.onChange?.(this.status());
    return result;
  }

  /** The agent whose write (served by this bridge) is the config file's latest change, if any. */
  private agentThatWroteLast(): string | undefined {
    if (!this.opts.agentWrites) return undefined;
    try {
      return this.opts.agentWrites.lastWriter(statSync(this.opts.path, { bigint: true }));
    } catch {
      return undefined;
    }
  }

  private apply(next: BridgeConfig): ReloadResult {
    const { registry } = this.opts;
    const before = this.current.agents;
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    const changedSettings: Record<string, string[]> = {};
    for (const [name, agent] of Object.entries(next.agents)) {
      const old = before[name];
      if (!old) {
        registry.add(name, this.track(this.opts.createBackend(name, agent)), this.opts.settingsOf(name, agent, next));
        added.push(name);
      } else if (JSON.stringify(old) !== JSON.stringify(agent)) {
        const backend = this.track(this.opts.createBackend(name, agent));
        const previous = registry.replace(name, backend, this.opts.settingsOf(name, agent, next));
        if (previous) this.retire(previous);
        changed.push(name);
        changedSettings[name] = changedSettingsOf(old, agent);
      } else if (registry.has(name)) {
        // Same definition: only settings that come from the top level (max_artifact_bytes) may differ.
        registry.get(name).settings = this.opts.settingsOf(name, agent, next);
      }
    }
    for (const name of Object.keys(before)) {
      if (next.agents[name]) continue;
      const previous = registry.remove(name);
      if (previous) this.retire(previous);
      removed.push(name);
    }
    // After the agents: the new default names an agent of the new config (the schema checked it).
    registry.setDefault(next.default_agent);
    this.opts.applyLive(next);
    this.current = next;
    const restartNeeded = RESTART_KEYS.filter(
      (key) => JSON.stringify(this.opts.started[key]) !== JSON.stringify(next[key]),
    );
    const changes: ConfigChanges = { added, changed, removed, changedSettings };
    const loadedAt = new Date().toISOString();
    const lastChanges = hasChanges(changes) ? { ...changes, at: loadedAt } : this.state.lastChanges;
    this.state = {
      path: this.opts.path,
      loadedAt,
      restartNeeded,
      ...(lastChanges ? { lastChanges } : {}),
    };
    // The message itself names the agents: the foreground log shows messages, not their fields.
    const what = describeChanges(changes) || 'no agent changed';
    this.opts.log.info(
      { added, changed, removed, changedSettings, ...(restartNeeded.length ? { restartNeeded } : {}) },
      restartNeeded.length
        ? `config reloaded: ${what}; ${restartNeeded.join(', ')} changed and need a restart to apply`
        : `config reloaded: ${what}`,
    );
    return { ...this.status(), ...changes };
  }

  private track(backend: AgentBackend): AgentBackend {
    this.opts.backends.push(backend);
    return backend;
  }

  /** Closes a retired definition's backend once nothing of it runs or waits. */
  private retire(entry: AgentEntry): void {
    const timer = setInterval(() => {
      if (entry.active > 0 || entry.shard.running > 0 || entry.shard.waiting > 0) return;
      clearInterval(timer);
      this.retiring.delete(timer);
      const at = this.opts.backends.indexOf(entry.backend);
      if (at >= 0) this.opts.backends.splice(at, 1);
      this.opts.registry.closed(entry);
      void entry.backend.close().catch(() => undefined);
    }, RETIRE_POLL_MS);
    timer.unref();
    this.retiring.add(timer);
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
