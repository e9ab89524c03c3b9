/**
 * A vitest reporter (vitest's Reporter API, `onTestModuleEnd(testModule)`) that appends one line per
 * finished test file to the file named by CONTACTOR_LANE_PROGRESS: the lane (run.mjs) prints them as they
 * come, since under Wine vitest's own output can only go to a file read at the end.
 */
import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export function progressLine(testModule: TestModule): string {
  const state = testModule.state();
  const mark = state === 'passed' ? '✓' : state === 'skipped' ? '-' : '✗';
  const seconds = (testModule.diagnostic().duration / 1000).toFixed(1);
  const tests = [...testModule.children.allTests()];
  const failed = tests.filter((t) => t.result().state === 'failed').length;
  return `${mark} ${testModule.relativeModuleId} (${tests.length} tests${failed ? `, ${failed} failed` : ''}, ${seconds} s)`;
}

export default class FileProgressReporter implements Reporter {
  private readonly file: string | undefined;

  constructor(file = process.env.CONTACTOR_LANE_PROGRESS) {
    this.file = file;
  }

  onTestModuleEnd(testModule: TestModule): void {
    if (this.file) appendFileSync(this.file, `${progressLine(testModule)}\n`);
  }
}
