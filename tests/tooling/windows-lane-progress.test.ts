/**
 * What `npm run test:windows` prints while it works (tests/windows-lane/progress.ts, file-reporter.ts): set-up
 * steps with their durations, one line per finished test file, and the cache's place, size and removal.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import FileProgressReporter, { progressLine } from '../windows-lane/file-reporter.js';
import { cacheReport, formatBytes, step, tailLines } from '../windows-lane/progress.js';
import laneConfig from '../windows-lane/vitest.config.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-lane-progress-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Models vitest's TestModule (node_modules/vitest/dist/chunks/plugin.d.*.ts `declare class TestModule`): the
 * parts the reporter reads — relativeModuleId, state(), diagnostic().duration, children.allTests().
 */
function fakeModule(id: string, state: string, durationMs: number, results: string[]): TestModule {
  return {
    relativeModuleId: id,
    state: () => state,
    diagnostic: () => ({ duration: durationMs }),
    children: {
      *allTests() {
        for (const r of results) yield { result: () => ({ state: r }) };
      },
    },
  } as unknown as TestModule;
}

describe('windows lane progress', () => {
  it('a set-up step is printed with how long it took', async () => {
    const lines: string[] = [];
    let t = 1_000;
    const result = await step(
      'Wine prefix ready',
      () => {
        t += 83_400;
        return 'done';
      },
      { log: (l) => lines.push(l), now: () => t },
    );
    expect(result).toBe('done');
    expect(lines).toEqual(['windows lane: Wine prefix ready (83 s)']);
    await step('bundles built', () => undefined, { log: (l) => lines.push(l), now: () => t });
    expect(lines[1]).toBe('windows lane: bundles built (0.0 s)');
  });

  it('the cache: where, how large (links not followed), how to remove it', () => {
    const cache = path.join(dir, 'cache');
    mkdirSync(path.join(cache, 'prefix', 'drive_c'), { recursive: true });
    writeFileSync(path.join(cache, 'node.zip'), Buffer.alloc(1536 * 1024));
    writeFileSync(path.join(cache, 'prefix', 'drive_c', 'x.dll'), Buffer.alloc(512 * 1024));
    writeFileSync(path.join(dir, 'outside.bin'), Buffer.alloc(4 * 1024 * 1024));
    symlinkSync(path.join(dir, 'outside.bin'), path.join(cache, 'prefix', 'link.bin'));
    expect(cacheReport(cache)).toBe(
      `windows lane: cache ${cache}: 2.0 MB (Wine prefix, Windows Node, downloads); kept for the next run, remove it with \`rm -rf ${cache}\``,
    );
    expect(cacheReport(path.join(dir, 'none'))).toBe(`windows lane: cache ${path.join(dir, 'none')}: none yet`);
    expect(formatBytes(1.2 * 1024 ** 3)).toBe('1.2 GB');
  });

  it('reads the progress file as it grows, whole lines only', () => {
    const file = path.join(dir, 'progress.txt');
    const poll = tailLines(file);
    expect(poll()).toEqual([]); // not there yet
    writeFileSync(file, '✓ tests/a.test.ts (3 tests, 1.0 s)\n✓ tests/b');
    expect(poll()).toEqual(['✓ tests/a.test.ts (3 tests, 1.0 s)']);
    appendFileSync(file, '.test.ts (1 tests, 2.5 s)\n');
    expect(poll()).toEqual(['✓ tests/b.test.ts (1 tests, 2.5 s)']);
    expect(poll()).toEqual([]);
  });

  it('the reporter appends one line per finished test file', () => {
    const file = path.join(dir, 'reporter.txt');
    writeFileSync(file, '');
    const reporter = new FileProgressReporter(file);
    reporter.onTestModuleEnd(fakeModule('tests/cli/launcher.test.ts', 'passed', 12_345, ['passed', 'passed']));
    reporter.onTestModuleEnd(fakeModule('tests/x.test.ts', 'failed', 800, ['passed', 'failed', 'skipped']));
    expect(tailLines(file)()).toEqual([
      '✓ tests/cli/launcher.test.ts (2 tests, 12.3 s)',
      '✗ tests/x.test.ts (3 tests, 1 failed, 0.8 s)',
    ]);
    expect(progressLine(fakeModule('tests/s.test.ts', 'skipped', 0, []))).toBe('- tests/s.test.ts (0 tests, 0.0 s)');
  });

  it("the lane's vitest config reports through it", () => {
    const reporters = (laneConfig as { test: { reporters: unknown[] } }).test.reporters;
    expect(reporters[0]).toBe('default');
    expect(reporters[1]).toBeInstanceOf(FileProgressReporter);
  });
});
