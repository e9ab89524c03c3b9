/**
 * One line to the parent through the stdout pipe, synchronously, for the crash-test children. A busy parent
 * reads late: the pipe fills, and a non-blocking write fails with EAGAIN (seen under load), so it waits a
 * millisecond and tries again instead of dying before the parent's kill.
 */
import { writeSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));

export function writeLineSync(line: string): void {
  for (;;) {
    try {
      writeSync(1, `${line}\n`);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
