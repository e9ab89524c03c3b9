/**
 * At start, before recovery fails their tasks: the agent processes (and what they started) that a killed
 * earlier run on this data dir left behind are stopped, first by the spawn marks of its runs, then by pid and
 * start time as the tasks recorded them (Windows, and a child that cleared its marks), then WSL agents; then
 * the temp folders of bridges that are gone.
 */
import type { BridgeLogger } from '../audit/logging.js';
import { recordedAgentsOf, stopRecordedAgents } from '../backends/process/recorded-agents.js';
import { stopEarlierRuns } from '../backends/process/spawn-marks.js';
import { stopWslOrphans } from '../backends/process/wsl-orphans.js';
import { removeLeftoverRunDirs } from '../backends/shared/run-temp-dirs.js';
import { isProcessAlive } from '../config/data-dir.js';
import type { SqliteTaskStore } from '../stores/sqlite.js';

export interface LeftoverAgentsOptions {
  /** This run's mark (newBridgeRun): its own agents are spared. */
  bridgeRun: string;
  store: SqliteTaskStore;
  wslDistros: (string | undefined)[];
  log: BridgeLogger;
}

export async function stopLeftoverAgents({ bridgeRun, store, wslDistros, log }: LeftoverAgentsOptions): Promise<void> {
  const orphans = await stopEarlierRuns(bridgeRun, 2000);
  const recorded = await stopRecordedAgents(
    recordedAgentsOf(store.tasksInStates(['submitted', 'working', 'input-required'])),
    { graceMs: 2000 },
  );
  if (process.platform === 'win32' && wslDistros.length > 0) await stopWslOrphans(wslDistros, bridgeRun);
  // Their attachment and prompt folders too, now that no agent of theirs reads them.
  const leftovers = removeLeftoverRunDirs(isProcessAlive);
  if (leftovers.length > 0) log.info({ removed: leftovers.length }, 'removed temp folders left by killed bridges');
  if (orphans > 0 || recorded.stopped.length > 0 || recorded.spared.length > 0)
    log.info(
      { orphans, recordedStopped: recorded.stopped, reusedPidsSpared: recorded.spared },
      'stopped agent processes left by the previous run',
    );
}
