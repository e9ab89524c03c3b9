/**
 * The line of an agent's stderr that says why it stopped (main/backends/process/stderr-cause.ts), and one
 * turn's stderr out of a process's (child-process.ts StderrTail.since).
 */
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { StderrTail } from '../../main/backends/process/child-process.js';
import { stderrCause } from '../../main/backends/process/stderr-cause.js';

const NODE_CRASH = [
  'node:internal/modules/cjs/loader:1228',
  '  throw err;',
  '  ^',
  '',
  "Error: Cannot find module '/opt/agent/dist/index.js'",
  'Require stack:',
  '- /opt/agent/bin/agent.js',
  '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
  '    at node:internal/main/run_main_module:28:49 {',
  "  code: 'MODULE_NOT_FOUND',",
  "  requireStack: [ '/opt/agent/bin/agent.js' ]",
  '}',
  '',
  'Node.js v24.21.0',
].join('\n');

describe('stderrCause', () => {
  const cases: [string, string, string][] = [
    [
      'a Node crash: its Error line, not the trailer',
      NODE_CRASH,
      "Error: Cannot find module '/opt/agent/dist/index.js'",
    ],
    [
      'a typed error',
      'warming up\nTypeError: x is not a function\n    at f (a.js:1:1)',
      'TypeError: x is not a function',
    ],
    ['a CLI error line', 'loading\nerror: unknown option --acp\n', 'error: unknown option --acp'],
    [
      'a Rust panic',
      "thread 'main' panicked at src/main.rs:3:5:\nno config",
      "thread 'main' panicked at src/main.rs:3:5:",
    ],
    [
      'no error line: the last plain line',
      'starting\nno API key in the environment\n',
      'no API key in the environment',
    ],
    ['nothing', '\n\n', ''],
  ];
  it.each(cases)('%s', (_, stderr, expected) => {
    expect(stderrCause(stderr)).toBe(expected);
  });
});

describe('StderrTail.since', () => {
  it("a turn's own lines, not an earlier turn's", () => {
    const stream = new PassThrough();
    const tail = new StderrTail(stream);
    stream.write('turn one: warning\n');
    const mark = tail.mark();
    stream.write('turn two: ');
    stream.write('boom\n');
    expect(tail.since(mark, 20)).toBe('turn two: boom');
    expect(tail.since(0, 20)).toBe('turn one: warning\nturn two: boom');
  });

  it('a line cut by the kept size is dropped, not shown from its middle', () => {
    const stream = new PassThrough();
    const tail = new StderrTail(stream, 16);
    stream.write('first line is long\n');
    stream.write('second\n');
    stream.write('third\n');
    expect(tail.since(0, 20)).toBe('second\nthird');
  });
});
