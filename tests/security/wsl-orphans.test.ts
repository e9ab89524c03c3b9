/**
 * The script a restarted bridge on Windows runs inside each WSL distro (wsl-orphans.ts). wsl.exe is not
 * here, so the script runs under Linux's own `sh` with the arguments wsl.exe would pass it; only the
 * argv in front of it is checked as data.
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { newBridgeRun } from '../../main/backends/process/spawn-marks.js';
import { ORPHAN_SCRIPT, wslOrphanCommand } from '../../main/backends/process/wsl-orphans.js';
import { isRunning } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';

const started: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const p of started.splice(0)) p.kill('SIGKILL');
});

function sleeper(mark: string | undefined): number {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (mark) env.CONTACTOR_BRIDGE_RUN = mark;
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { env, stdio: 'ignore' });
  started.push(child);
  return child.pid!;
}

describe('wslOrphanCommand', () => {
  it('runs the script in the agent distro with the data-dir key and the run to spare', () => {
    const run = newBridgeRun('/home/me/.local/state/contactor');
    const { program, args } = wslOrphanCommand('Ubuntu', run);
    expect(program).toBe('wsl.exe');
    expect(args).toEqual([
      '-d',
      'Ubuntu',
      '--',
      'sh',
      '-c',
      ORPHAN_SCRIPT,
      'contactor-orphans',
      run.split(':')[0],
      run,
    ]);
    expect(wslOrphanCommand(undefined, run).args.slice(0, 3)).toEqual(['--', 'sh', '-c']);
  });
});

describe.skipIf(process.platform !== 'linux')('the orphan script', () => {
  it('kills what an earlier run of the same data dir left, and nothing else', async () => {
    const current = newBridgeRun('/data/a');
    const earlier = newBridgeRun('/data/a');
    const otherDataDir = newBridgeRun('/data/b');
    const orphan = sleeper(earlier);
    const spared = [sleeper(current), sleeper(otherDataDir), sleeper(undefined)];
    await eventually(() => [orphan, ...spared].every(isRunning));
    const args = wslOrphanCommand(undefined, current).args.slice(1); // what wsl.exe would run: sh -c ...
    const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
    expect(result.status).toBe(0);
    await eventually(() => !isRunning(orphan));
    expect(spared.every(isRunning)).toBe(true);
  });
});
