/**
 * What the foreground `contactor serve` says while it runs (README.md#cli): one line per config reload
 * (applied, with the agents now configured; or not applied, with the file:line of the problem), one per
 * agent process start and end, and one per task state change. The bridge's own parts are described structurally here: only serve.ts builds it.
 */
import type { TaskEvent } from '../../domain/events.js';
import { isTerminal, type Task } from '../../domain/task.js';
import { describeChanges, type ConfigChanges } from '../../config/config-changes.js';
import type { Output } from './output.js';

/** The parts of the running bridge (main/wiring/wiring.ts `Bridge`) these lines come from. */
export interface ServedBridge {
  onConfigChange(
    listener: (state: {
      error?: string;
      restartNeeded: string[];
      loadedAt: string;
      lastChanges?: ConfigChanges & { at: string };
    }) => void,
  ): () => void;
  /** backends/process/agent-log.ts `AgentProcessEvent`, described structurally. */
  onAgentProcess(
    listener: (
      agent: string,
      event:
        | { kind: 'started'; pid: number | undefined }
        | { kind: 'exited'; pid: number | undefined; code: number | null; signal: string | null },
    ) => void,
  ): () => void;
  readonly server: {
    readonly dispatcher: {
      readonly feed: { listen(listener: (event: TaskEvent, task: Task) => void): () => void };
      readonly registry: { all(): readonly { name: string }[] };
    };
  };
}

export function agentCount(names: readonly string[]): string {
  return `${names.length} agent${names.length === 1 ? '' : 's'} (${names.join(', ') || 'none'})`;
}

/** Starts the lines; the returned function stops them. */
export function reportServeEvents(bridge: ServedBridge, out: Output): () => void {
  const { dispatcher } = bridge.server;
  const agentNames = () => dispatcher.registry.all().map((e) => e.name);
  const stopConfig = bridge.onConfigChange((state) => {
    if (state.error !== undefined) {
      out.line(`config not applied, the last good one stays: ${state.error}`);
      return;
    }
    const now = agentNames();
    // The changes of this very reload (an earlier reload's stay in the state until the next change).
    const changes = state.lastChanges?.at === state.loadedAt ? state.lastChanges : undefined;
    const what = changes ? describeChanges(changes) : '';
    out.line(
      [
        `config reloaded: ${agentCount(now)}`,
        ...(what ? [what] : []),
        ...(state.restartNeeded.length ? [`restart to apply ${state.restartNeeded.join(', ')}`] : []),
      ].join('; '),
    );
  });
  // A progress note repeats the state it is in: only a change of state makes a line.
  const lastState = new Map<string, string>();
  const stopFeed = dispatcher.feed.listen((event, task) => {
    if (event.kind !== 'status-update') return;
    const state = event.status.state;
    if (lastState.get(task.id) === state) return;
    if (isTerminal(state)) lastState.delete(task.id);
    else lastState.set(task.id, state);
    out.line(`task ${task.id} (${String(task.metadata.agent)}): ${state}`);
  });
  const stopProcesses = bridge.onAgentProcess((agent, event) => {
    const pid = event.pid === undefined ? '' : `pid ${event.pid}`;
    if (event.kind === 'started') out.line(`agent ${agent} started${pid ? ` (${pid})` : ''}`);
    else {
      const how = event.signal ? `signal ${event.signal}` : `code ${String(event.code)}`;
      out.line(`agent ${agent} exited (${[how, pid].filter(Boolean).join(', ')})`);
    }
  });
  return () => {
    stopConfig();
    stopFeed();
    stopProcesses();
  };
}
