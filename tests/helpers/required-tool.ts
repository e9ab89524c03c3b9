/**
 * Whether tests that need a program this machine may lack must be skipped: without it they are, with a message
 * naming the tests, the path and the install command — except with CI=true, where the absence fails the run.
 * CI installs every one of them (.ci/run), so a missing one there is a broken setup, never a pass (as the
 * Windows lane does, tests/windows-lane/run.mjs).
 */
import { existsSync } from 'node:fs';

export interface RequiredTool {
  /** As a person knows it: "Chromium", "sqlite3". */
  name: string;
  /** Where the tests run it from. */
  at: string;
  /** The command that installs it. */
  install: string;
  /** The tests that need it, in a message: "browser tests". */
  tests: string;
}

export function skipWithoutTool(
  tool: RequiredTool,
  what: string,
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (existsSync(tool.at)) return false;
  if (env.CI === 'true')
    throw new Error(
      `${what}: no ${tool.name} at ${tool.at}, and with CI=true ${tool.tests} never pass by skipping (${tool.install})`,
    );
  console.warn(`skipping ${what}: no ${tool.name} at ${tool.at} (${tool.install}; with CI=true this fails)`);
  return true;
}

/** Debian's sqlite3: the outside reader of the task database (tests/security/outside-reader.test.ts). */
export const SQLITE3 = process.env.CONTACTOR_SQLITE3 ?? '/usr/bin/sqlite3';

export function skipWithoutSqlite3(
  what: string,
  at: string = SQLITE3,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return skipWithoutTool(
    { name: 'sqlite3', at, install: 'apt-get install -y sqlite3', tests: 'sqlite3 tests' },
    what,
    env,
  );
}
