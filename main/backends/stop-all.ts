/**
 * Stopping a child and every process it started, wherever they went (issue 16 item 3): the process
 * tree as `stopProcessTree` reaches it (group or taskkill), then on Linux whatever still carries the
 * child's spawn mark — a `setsid` child, a double-forked daemon reparented to init (spawn-marks.ts).
 */
import { stopProcessTree, type AgentChild, type StopOptions, type StopResult } from './child-process.js';
import { spawnMarkOf, stopSpawned } from './spawn-marks.js';

export async function stopChildAndDescendants(child: AgentChild, options: StopOptions = {}): Promise<StopResult> {
  const result = await stopProcessTree(child, options);
  const mark = spawnMarkOf(child);
  if (mark !== undefined) await stopSpawned(mark, options.graceMs ?? 2000);
  return result;
}
