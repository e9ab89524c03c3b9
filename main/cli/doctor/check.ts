/** One line of `doctor`: what was checked, how it went, and what to do when it failed. */
import type { Output } from '../render/output.js';
import { shown } from '../render/screen-text.js';

export interface Check {
  name: string;
  status: 'ok' | 'fail' | 'skip';
  detail: string;
  fix?: string;
  /** The last lines the program wrote to stderr, when it failed. */
  stderr?: string;
  /** The agent's last warnings in its stderr log (`contactor logs`), when its probe failed. */
  log?: string;
  /** Facts behind the detail (what an ACP agent declared), for --json. */
  data?: unknown;
}

export function printCheck(out: Output, check: Check): void {
  const mark = check.status === 'ok' ? out.c.green('✓') : check.status === 'skip' ? out.c.dim('-') : out.c.red('✗');
  out.line(shown`${mark} ${check.name}: ${check.detail}`);
  if (check.status !== 'fail') return;
  if (check.stderr) for (const line of check.stderr.split('\n')) out.line(shown`    ${out.c.dim(`stderr| ${line}`)}`);
  if (check.log) for (const line of check.log.split('\n')) out.line(shown`    ${out.c.dim(`log| ${line}`)}`);
  if (check.fix) out.line(`    fix: ${check.fix}`);
}
