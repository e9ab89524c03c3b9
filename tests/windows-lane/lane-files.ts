/**
 * The Windows lane's curated test set, in one place: the files that exercise platform-specific code and run
 * under the real Windows Node, and every test left out with its reason. Excluding a test here is for a reason of
 * Wine's or for a known product bug that another issue fixes — never for flakiness.
 */

/** Test files run under Windows Node in Wine. */
export const LANE_FILES = [
  'tests/backends/win32-command.test.ts',
  'tests/config.test.ts',
  'tests/stores/sqlite.test.ts',
  'tests/backends/subprocess-cli.test.ts',
  'tests/backends/child-process.test.ts',
  'tests/logging.test.ts',
  'tests/integration/http-startup.test.ts',
  'tests/cli/send.test.ts',
  'tests/cli/stdio.test.ts',
  'tests/cli/bridge-access.test.ts',
  'tests/cli/lifecycle.test.ts',
  'tests/cli/setup.test.ts',
];

/**
 * Single tests left out, by file and full name (describe titles and test title joined by a space, as vitest
 * reports them), each with the reason.
 */
export const EXCLUDED_TESTS: { file: string; name: string; reason: string }[] = [];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A vitest testNamePattern that matches every test but the excluded ones. */
export function excludedTestsPattern(): RegExp | undefined {
  if (EXCLUDED_TESTS.length === 0) return undefined;
  return new RegExp(`^(?!(${EXCLUDED_TESTS.map((t) => escape(t.name)).join('|')})$)`);
}
