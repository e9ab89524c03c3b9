/**
 * What the hosted Windows runner's "Test suite" step runs (.github/workflows/windows.yml), in one place: `npm test`
 * there would run the POSIX fixtures too (`#!/bin/sh` agents, chmod, SIGTERM, symlinks), which fail on Windows by
 * design. So the step runs an explicit list: the Wine lane's files (tests/windows-lane/lane-files.ts: written for
 * or proven under the Windows Node) and platform-neutral files that run in-process, with no shell, signal, file
 * mode or POSIX path (tests/windows-runner/suite-files.test.ts checks each exists and names none of those).
 */
import { LANE_FILES } from '../windows-lane/lane-files.js';

/** In-process logic only: domain rules, schemas, the desktop shell's pure parts, the `top` screen's model. */
export const PLATFORM_NEUTRAL_FILES = [
  'tests/domain/activity-last-line.test.ts',
  'tests/domain/decision-contract.test.ts',
  'tests/domain/pending.test.ts',
  'tests/domain/task.test.ts',
  'tests/schema/a2a.test.ts',
  'tests/schema/a2a-v1.test.ts',
  'tests/schema/a2a-v1-convert.test.ts',
  'tests/runtime/payload-hash.test.ts',
  'tests/runtime/scrubber.test.ts',
  'tests/runtime/task-ids.test.ts',
  'tests/shell/approval-keys.test.ts',
  'tests/shell/toast-xml.test.ts',
  'tests/shell/tray-badge.test.ts',
  'tests/shell/tray-state.test.ts',
  'tests/cli/top/keys.test.ts',
  'tests/cli/top/view-model.test.ts',
];

export const WINDOWS_RUNNER_FILES = [...LANE_FILES, ...PLATFORM_NEUTRAL_FILES];
