/** How a failed CLI run ends, with and without --json, and when its document was already printed. */
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../main/cli/exit-codes.js';
import { Output } from '../../main/cli/render/output.js';
import { reportFailure } from '../../main/cli/render/report-failure.js';

function captured(json: boolean): { out: Output; stdout: () => string; stderr: () => string } {
  const written = { stdout: '', stderr: '' };
  const stream = (name: 'stdout' | 'stderr') =>
    ({ isTTY: false, write: (s: string) => ((written[name] += s), true) }) as unknown as NodeJS.WriteStream;
  const out = new Output(json, { stdout: stream('stdout'), stderr: stream('stderr'), env: { NO_COLOR: '1' } });
  return { out, stdout: () => written.stdout, stderr: () => written.stderr };
}

describe('reportFailure', () => {
  it('says what failed on stderr and returns the error’s exit code', () => {
    const run = captured(false);
    expect(reportFailure(new CliError('no bridge answers', EXIT.unreachable), run.out)).toBe(EXIT.unreachable);
    expect(run.stderr()).toBe('contactor: no bridge answers\n');
    expect(run.stdout()).toBe('');
  });

  it('with --json, also prints one {error} document', () => {
    const run = captured(true);
    expect(reportFailure(new CliError('no bridge answers', EXIT.unreachable), run.out)).toBe(EXIT.unreachable);
    expect(JSON.parse(run.stdout())).toEqual({ error: { message: 'no bridge answers', exitCode: EXIT.unreachable } });
  });

  it('with --json after the command printed its document, keeps stdout to that one document', () => {
    const run = captured(true);
    run.out.doc({ tasks: [] });
    expect(reportFailure(new Error('socket hang up'), run.out)).toBe(EXIT.failed);
    expect(JSON.parse(run.stdout())).toEqual({ tasks: [] });
    expect(run.stderr()).toContain('contactor: unexpected error: Error: socket hang up');
  });
});
