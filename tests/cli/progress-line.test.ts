/**
 * The progress line of `send` and `answer` (main/cli/render/progress-line.ts) on a terminal, driven by a
 * clock the test moves: the time so far redrawn in place while nothing comes, the line ended before the
 * reply's first words, a later state on a line of its own; and piped, the same events draw nothing but the
 * task's id. The bytes written are pinned, escape codes and all.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from '../../main/cli/render/output.js';
import { ProgressLine, type Clock } from '../../main/cli/render/progress-line.js';
import type { StreamResult } from '../../main/schema/cli.js';

function sink(tty: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  stream.isTTY = tty;
  return { stream, text: () => text };
}

/** A clock that moves only when the test says, and runs the ticks due. */
function testClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  const ticks: { every: number; next: number; tick: () => void }[] = [];
  return {
    now: () => now,
    every: (ms, tick) => {
      const entry = { every: ms, next: now + ms, tick };
      ticks.push(entry);
      return { stop: () => void ticks.splice(ticks.indexOf(entry), 1) };
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = ticks.filter((t) => t.next <= until).sort((a, b) => a.next - b.next)[0];
        if (due === undefined) break;
        now = due.next;
        due.next += due.every;
        due.tick();
      }
      now = until;
    },
  };
}

const task = (state: string): StreamResult =>
  ({
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state },
    artifacts: [],
    metadata: { agent: 'talker' },
  }) as unknown as StreamResult;
const status = (state: string, final = false): StreamResult =>
  ({ kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state }, final }) as unknown as StreamResult;
const words = (text: string, append: boolean): StreamResult =>
  ({
    kind: 'artifact-update',
    taskId: 't1',
    contextId: 'c1',
    artifact: { artifactId: 'a1', parts: [{ kind: 'text', text }] },
    append,
    lastChunk: false,
  }) as unknown as StreamResult;

describe('on a terminal', () => {
  it('the time so far while nothing comes, the words as they come, the final state and time', () => {
    const out = sink(true);
    const err = sink(true);
    const clock = testClock();
    const line = new ProgressLine(
      new Output(false, { stdout: out.stream, stderr: err.stream, env: { NO_COLOR: '1' } }),
      {
        showTaskId: true,
        clock,
      },
    );
    line.onEvent(task('submitted'));
    line.onEvent(status('working'));
    clock.advance(2500);
    line.onEvent(words('Hello, ', false));
    clock.advance(5000);
    line.onEvent(words('world.', true));
    line.onEvent(status('completed', true));
    clock.advance(300);
    line.end();
    expect(err.text()).toBe(
      [
        '\rtask t1 0s\u001b[K',
        '\rtask t1 [submitted] 0s\u001b[K',
        '\rtask t1 [submitted] → [working] 0s\u001b[K',
        '\rtask t1 [submitted] → [working] 1s\u001b[K',
        '\rtask t1 [submitted] → [working] 2s\u001b[K',
        '\rtask t1 [submitted] → [working] 2s\u001b[K\n',
        '\r[completed] 7s\u001b[K',
        '\r[completed] 7.8s\u001b[K\n',
      ].join(''),
    );
    expect(out.text()).toBe('Hello, world.\n');
    expect(line.streamed).toEqual({ artifactId: 'a1', text: 'Hello, world.' });
  });
});

describe('piped', () => {
  it('the task id on its own line, nothing else, and nothing streamed', () => {
    const out = sink(false);
    const err = sink(false);
    const clock = testClock();
    const line = new ProgressLine(new Output(false, { stdout: out.stream, stderr: err.stream, env: {} }), {
      showTaskId: true,
      clock,
    });
    line.onEvent(task('submitted'));
    line.onEvent(status('working'));
    clock.advance(2500);
    line.onEvent(words('Hello, ', false));
    line.onEvent(status('completed', true));
    line.end();
    expect(err.text()).toBe('task t1\n');
    expect(out.text()).toBe('');
    expect(line.streamed).toBeUndefined();
  });
});
