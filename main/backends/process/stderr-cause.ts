/**
 * The line of an agent's stderr that says why it stopped. A Node program that dies at start prints its
 * error first (`Error: Cannot find module …`) and then stack frames, an object dump and `Node.js v24…`;
 * the last lines alone never explain it. Python, Rust and most CLIs print an `Error:` / `error:` /
 * `fatal:` line too. Without such a line, the last line that is not a frame or trailer.
 */
const ERROR_LINE = /^(?:[\w$.]*(?:Error|Exception)\b|(?:error|fatal|panic)\b|thread '.*' panicked)/i;
/** A stack frame, the `^` caret line, an object dump's braces, the `Node.js vX` trailer. */
const NOT_A_CAUSE = /^(?:at\s|\^+$|[{}[\]]|[\w$]+:\s.*,$|Node\.js v\d|Require stack:|- \/|- [A-Z]:\\)/;

export function stderrCause(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const error = lines.find((line) => ERROR_LINE.test(line));
  if (error !== undefined) return error;
  return [...lines].reverse().find((line) => !NOT_A_CAUSE.test(line)) ?? '';
}
