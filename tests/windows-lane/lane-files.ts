/**
 * The Windows lane's curated test set, in one place: the files that exercise platform-specific code and run
 * under the real Windows Node, and every test left out with its reason. Excluding a test here is for a reason of
 * Wine's or for a known product bug that another issue fixes — never for flakiness.
 */

/**
 * Test files run under the Windows Node in Wine: those that touch platform-specific code (command and shim
 * resolution, child processes and process trees, config and data-dir defaults, the store on C:\ paths, the CLI
 * and its bridge, the packaged CLI). Files not named here run in `npm test` only.
 */
export const LANE_FILES = [
  // Written for Windows: PATH × PATHEXT agents, .cmd through cmd.exe, taskkill /T, contactor.cmd.
  'tests/windows-lane/win32-agents.test.ts',
  'tests/windows-lane/packaged-cli.test.ts',
  // The native CLI launcher (build/launcher/contactor.c): arguments, stdio and exit codes as Windows passes them.
  'tests/windows-lane/launcher.test.ts',
  // Ctrl-C on a console, forwarded by the launcher to the real CLI.
  'tests/windows-lane/launcher-ctrl-c.test.ts',
  // Command resolution and quoting, WSL path translation, ACP launch plans.
  'tests/backends/win32-command.test.ts',
  'tests/backends/wsl-paths.test.ts',
  'tests/backends/acp-launch.test.ts',
  // Real child processes: env on Windows, stopping, the CLI backend, ACP over stdio.
  'tests/backends/child-process.test.ts',
  'tests/backends/subprocess-cli.test.ts',
  'tests/backends/cli-command-line.test.ts',
  'tests/backends/agent-env.test.ts',
  'tests/backends/acp.test.ts',
  'tests/backends/acp-lifecycle.test.ts',
  // Config and data-dir defaults (%USERPROFILE%\.contactor, the move from %APPDATA%, %LOCALAPPDATA%), the log
  // file, start-up on a data dir.
  'tests/config/config-move.test.ts',
  'tests/config/config.test.ts',
  'tests/audit/logging.test.ts',
  'tests/audit/audit-log.test.ts',
  'tests/integration/http-startup.test.ts',
  // better-sqlite3's win32-x64.node on C:\ paths.
  'tests/stores/sqlite.test.ts',
  'tests/stores/wal-checkpoint.test.ts',
  'tests/stores/prune.test.ts',
  // The CLI against a bridge under the Windows Node: --version, serve/up/down, send/answer, setup, stdio.
  'tests/cli/launch-mode.test.ts',
  'tests/cli/lifecycle.test.ts',
  'tests/cli/send.test.ts',
  'tests/cli/bridge-access.test.ts',
  'tests/cli/setup.test.ts',
  'tests/cli/stdio.test.ts',
];

/**
 * Single tests left out, by file and full name (describe titles and the test title joined by ' > ', as vitest
 * prints them after FAIL), each with the reason.
 */
export const EXCLUDED_TESTS: { file: string; name: string; reason: string }[] = [];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A vitest testNamePattern that matches every test but the excluded ones. */
export function excludedTestsPattern(): RegExp | undefined {
  if (EXCLUDED_TESTS.length === 0) return undefined;
  return new RegExp(`^(?!(${EXCLUDED_TESTS.map((t) => escape(t.name)).join('|')})$)`);
}
