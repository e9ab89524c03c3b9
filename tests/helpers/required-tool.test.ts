/**
 * Tests that need a program this machine may lack skip with a message, except with CI=true, where the absence
 * fails the run — decided in one place, tests/helpers/required-tool.ts, that every such test goes through
 * (the sqlite3 tests here; the browser tests in chromium.test.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { skipWithoutSqlite3 } from './required-tool.js';

const TESTS = path.resolve(import.meta.dirname, '..');
const MISSING = '/nonexistent/contactor-test/sqlite3';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

afterEach(() => vi.restoreAllMocks());

describe('skipWithoutSqlite3', () => {
  it('skips with a message naming the tests, the path and the install command when sqlite3 is missing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(skipWithoutSqlite3('the planted tests', MISSING, {})).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      'skipping the planted tests: no sqlite3 at /nonexistent/contactor-test/sqlite3 (apt-get install -y sqlite3; with CI=true this fails)',
    );
  });

  it('fails instead with CI=true', () => {
    expect(() => skipWithoutSqlite3('the planted tests', MISSING, { CI: 'true' })).toThrow(
      'the planted tests: no sqlite3 at /nonexistent/contactor-test/sqlite3, and with CI=true sqlite3 tests never pass by skipping (apt-get install -y sqlite3)',
    );
  });

  it('runs them when sqlite3 is there, CI or not', () => {
    expect(skipWithoutSqlite3('x', process.execPath, {})).toBe(false);
    expect(skipWithoutSqlite3('x', process.execPath, { CI: 'true' })).toBe(false);
  });

  it('every test file that runs sqlite3 decides through it', () => {
    const running = testFiles(TESTS)
      .filter((f) => f !== import.meta.filename)
      .filter((f) => /\bSQLITE3\b|['"/]sqlite3['"]/.test(readFileSync(f, 'utf8')));
    expect(running.map((f) => path.relative(TESTS, f)).sort()).toEqual([
      'security/outside-reader.test.ts',
      'stores/wal-recovery.test.ts',
    ]);
    const unguarded = running
      .filter((f) => !/skipIf\([^)]*skipWithoutSqlite3\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(TESTS, f));
    expect(unguarded).toEqual([]);
  });
});
