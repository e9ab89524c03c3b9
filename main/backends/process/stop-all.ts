/**
 * Stopping a child and every process it started, wherever they went (SECURITY.md#agent-processes): the process
 * tree as `stopProcessTree` reaches it (group or taskkill), then on Linux whatever still carries the
 * child's spawn mark — a `setsid` child, a double-forked daemon reparented to init (spawn-marks.ts).
 */
import {
  exited,
  stopProcessTree,
  within,
  type AgentChild,
  type StopOptions,
  type StopResult,
} from './child-process.js';
import { spawnMarkOf, stopSpawned } from './spawn-marks.js';

/** How long a child the sweep killed may take to be reaped. */
const SWEPT_EXIT_MS = 2000;

export async function stopChildAndDescendants(child: AgentChild, options: StopOptions = {}): Promise<StopResult> {
  const result = await stopProcessTree(child, options);
  const mark = spawnMarkOf(child);
  if (mark === undefined) return result;
  const swept = await stopSpawned(mark, options.graceMs ?? 2000);
  // The sweep also reaches a child the tree kill left alive (a taskkill that failed): report what holds now.
  if (!result.exited && swept > 0 && (await within(exited(child), SWEPT_EXIT_MS)))
    return { exited: true, problems: [] };
  return result;
}
