import { unknownAgent } from '../domain/errors.js';
import type { AgentBackend } from '../ports.js';
import type { ApprovalRule, PathJudge } from './approval-rules.js';
import { Shard } from './shards.js';
import { SlottedShard, type TurnSlots } from './turn-slots.js';

/** What the runtime needs to know about one configured agent. */
export interface AgentSettings {
  description?: string;
  timeoutMs: number;
  approvalTimeoutMs: number;
  approvalRules: ApprovalRule[];
  /** Whether a location lies in a rule's folder (main/platform/path-containment.ts, from the wiring). */
  pathJudge?: PathJudge;
  /** Raw-input fields the agent changes between two issues of one call (domain/tool-call-identity.ts). */
  volatileInputFields?: readonly string[];
  appendDecisionContract: boolean;
  maxQueue: number;
  /** Reply text kept per task, in UTF-8 bytes (default DEFAULT_MAX_ARTIFACT_BYTES). */
  maxArtifactBytes?: number;
  workspace?: string;
  /**
   * A task's cwd as the agent may use it, or a throw (-32602) naming the allowed roots. Absent: the
   * cwd is taken as given (tests of the runtime alone).
   */
  confineCwd?: (cwd: string) => string;
  skills: { id: string; name: string; description: string; tags: string[]; examples?: string[] }[];
  tags: string[];
}

export interface AgentEntry {
  name: string;
  backend: AgentBackend;
  settings: AgentSettings;
  shard: Shard;
  /** Turns of this entry between their start and their end (a turn parked on a question counts). */
  active: number;
  /**
   * Set when a config reload took this definition out: `removed` (the agent is gone; its queued tasks
   * fail) or `replaced` (a new definition takes new work; this one finishes what it has).
   */
  retired?: 'removed' | 'replaced';
}

/**
 * The configured agents, by name. Built by wiring; a config reload swaps definitions in and out (the
 * runtime keeps the entry a task started on, so a running task finishes on its own definition).
 */
export class AgentRegistry {
  private readonly entries = new Map<string, AgentEntry>();
  /** Removed by a reload, not yet closed: see `callerNames`. */
  private readonly leaving = new Set<AgentEntry>();
  /** `callerNames`, made once per change of the agents: it is asked on every request (the token check). */
  private callers: readonly string[] | undefined;

  /** config.yaml's `default_agent` (validated there to name a configured agent); a reload sets it anew. */
  private configuredDefault: string | undefined;

  /** With `slots`, every agent's turns also count against the bridge-wide cap. */
  constructor(private readonly slots?: TurnSlots) {}

  add(name: string, backend: AgentBackend, settings: AgentSettings): void {
    const shard = this.slots
      ? new SlottedShard(name, settings.maxQueue, this.slots)
      : new Shard(name, settings.maxQueue);
    this.entries.set(name, { name, backend, settings, shard, active: 0 });
    this.callers = undefined;
  }

  /** New work for `name` goes to the new definition; returns the old entry, to retire once idle. */
  replace(name: string, backend: AgentBackend, settings: AgentSettings): AgentEntry | undefined {
    const old = this.entries.get(name);
    if (old) old.retired = 'replaced';
    this.add(name, backend, settings);
    return old;
  }

  /** Takes `name` out: new sends get unknown-agent; returns the old entry, to retire once idle. */
  remove(name: string): AgentEntry | undefined {
    const old = this.entries.get(name);
    if (old) {
      old.retired = 'removed';
      this.leaving.add(old);
    }
    this.entries.delete(name);
    this.callers = undefined;
    return old;
  }

  /** A retired definition was closed (nothing of it runs any more). */
  closed(entry: AgentEntry): void {
    this.leaving.delete(entry);
    this.callers = undefined;
  }

  setDefault(name: string | undefined): void {
    this.configuredDefault = name;
  }

  /**
   * The agent a send to the root endpoint goes to when it names none (docs/contract.md#the-default-agent):
   * `default_agent`, else the only configured agent; undefined when several are configured and none is chosen.
   */
  defaultAgent(): { name: string; why: 'default_agent' | 'the only agent' } | undefined {
    if (this.configuredDefault !== undefined && this.entries.has(this.configuredDefault)) {
      return { name: this.configuredDefault, why: 'default_agent' };
    }
    if (this.entries.size !== 1) return undefined;
    return { name: this.entries.keys().next().value!, why: 'the only agent' };
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * Agents whose processes may call the bridge with their own token: the configured ones, and removed
   * ones still finishing what they started (a running task finishes on the definition it started with).
   */
  callerNames(): readonly string[] {
    if (this.callers) return this.callers;
    const names = new Set(this.entries.keys());
    for (const entry of this.leaving) names.add(entry.name);
    this.callers = [...names];
    return this.callers;
  }

  all(): AgentEntry[] {
    return [...this.entries.values()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Throws UnknownAgent naming the agents that do exist. */
  get(name: string): AgentEntry {
    const entry = this.entries.get(name);
    if (!entry) {
      throw unknownAgent(name, this.names());
    }
    return entry;
  }
}
