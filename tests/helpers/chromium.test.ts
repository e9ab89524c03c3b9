/**
 * The browser tests skip with a message where Chromium is missing, except with CI=true, where that fails the
 * run — decided in one place, tests/helpers/chromium.ts, that every browser test goes through.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { skipWithoutChromium } from './chromium.js';

const TESTS = path.resolve(import.meta.dirname, '..');
const MISSING = '/nonexistent/contactor-test/chromium';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'fixtures' ? [] : testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

afterEach(() => vi.restoreAllMocks());

describe('skipWithoutChromium', () => {
  it('skips with a message naming the tests and the path when Chromium is missing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(skipWithoutChromium('the planted tests', MISSING, {})).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^skipping the planted tests: no Chromium at .*chromium/));
  });

  it('fails instead with CI=true', () => {
    expect(() => skipWithoutChromium('the planted tests', MISSING, { CI: 'true' })).toThrow(
      /the planted tests: no Chromium at .*CI=true browser tests never pass by skipping/,
    );
  });

  it('runs them when the browser is there, CI or not', () => {
    expect(skipWithoutChromium('x', process.execPath, {})).toBe(false);
    expect(skipWithoutChromium('x', process.execPath, { CI: 'true' })).toBe(false);
  });

  it('every test file that launches Chromium decides through it', () => {
    const launching = testFiles(TESTS)
      .filter((f) => f !== import.meta.filename)
      .filter((f) => /launchChromium\(|from 'playwright-core'/.test(readFileSync(f, 'utf8')));
    expect(launching.length).toBeGreaterThanOrEqual(2);
    const unguarded = launching
      .filter((f) => !/skipIf\(skipWithoutChromium\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(TESTS, f));
    expect(unguarded).toEqual([]);
  });
});
