import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  destroyPipes,
  exited,
  spawnChild,
  started,
  StderrTail,
  stopProcessTree,
  type AgentChild,
} from '../../main/backends/process/child-process.js';
import { spawnMarkOf } from '../../main/backends/process/spawn-marks.js';
import { groupAlive, taskkillCommand, type TreeKill } from '../../main/backends/process/process-tree.js';
import { childEnvAsGiven, fixture, isRunning, pidFrom } from '../fixtures/cli/processes.js';

const posix = process.platform !== 'win32';
let dir: string;
const children: AgentChild[] = [];
const pids: number[] = [];

function spawnFixture(name: string, ...args: string[]): AgentChild {
  const child = spawnChild({ command: fixture(name, ...args), env: { PATH: process.env.PATH ?? '' } });
  children.push(child);
  if (child.pid !== undefined) pids.push(child.pid);
  return child;
}

async function readAll(child: AgentChild): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contactor-child-test-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    await stopProcessTree(child, { graceMs: 100 });
    destroyPipes(child);
  }
  for (const pid of pids.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('taskkillCommand', () => {
  it('kills the whole tree forcefully by pid', () => {
    expect(taskkillCommand(4321)).toEqual({ program: 'taskkill', args: ['/PID', '4321', '/T', '/F'] });
  });
});

describe('StderrTail', () => {
  it('keeps only the last bytes and finds the last line', () => {
    const stream = new PassThrough();
    const tail = new StderrTail(stream, 64);
    for (let i = 0; i < 100; i += 1) stream.write(`noise line ${i}\n`);
    stream.write('the real problem\n\n');
    expect(tail.text().length).toBeLessThanOrEqual(64);
    expect(tail.text()).toContain('the real problem');
    expect(tail.text()).not.toContain('noise line 1\n');
    expect(tail.lastLine()).toBe('the real problem');
  });

  it('drops a UTF-8 sequence cut in half at the front', () => {
    const stream = new PassThrough();
    const tail = new StderrTail(stream, 5);
    stream.write(Buffer.from('éabcd', 'utf8')); // é is 2 bytes: the last 5 bytes start mid-character
    expect(tail.text()).toBe('abcd');
  });

  it('is empty before anything arrives', () => {
    const tail = new StderrTail(new PassThrough());
    expect(tail.text()).toBe('');
    expect(tail.lastLine()).toBe('');
  });
});

describe('spawnChild', () => {
  it('gives the child exactly the env it is handed', async () => {
    process.env.SECRET_X = 'must-not-leak';
    try {
      const child = spawnChild({ command: fixture('env-dump.mjs', '--all'), env: { ONLY_THIS: 'yes' } });
      children.push(child);
      child.stdin.end();
      // Plus its spawn mark, by which its descendants are found (spawn-marks.ts).
      expect(childEnvAsGiven(JSON.parse(await readAll(child)), { ONLY_THIS: 'yes' })).toEqual({
        ONLY_THIS: 'yes',
        CONTACTOR_SPAWN: spawnMarkOf(child),
      });
    } finally {
      delete process.env.SECRET_X;
    }
  });

  it('passes arguments verbatim, never through a shell', async () => {
    const child = spawnFixture('echo-args.mjs', '$(echo hi)', 'a b;c', '"quoted"');
    child.stdin.end();
    expect(JSON.parse(await readAll(child)).args).toEqual(['$(echo hi)', 'a b;c', '"quoted"']);
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('reports a missing program through started, not a throw', async () => {
    const child = spawnChild({ command: ['/nonexistent/agent-cli'], env: {} });
    const error = await started(child);
    expect(error).toBeInstanceOf(Error);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('stopProcessTree', () => {
  it('lets an agent that exits on stdin EOF go without a signal', async () => {
    const child = spawnFixture('echo-stdin.mjs');
    await started(child);
    await stopProcessTree(child, { eofMs: 5000, graceMs: 100 });
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it.runIf(posix)('kills a SIGTERM-ignoring child and its grandchild', async () => {
    const pidFile = join(dir, 'pid');
    const child = spawnFixture('sleeper.mjs', '--ignore-term', '--grandchild', '--pid-file', pidFile);
    const pid = await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(grandchild);
    expect(isRunning(grandchild)).toBe(true);
    expect(groupAlive(pid)).toBe(true);

    await stopProcessTree(child, { graceMs: 200 });

    expect((await exited(child)).signal).toBe('SIGKILL');
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(groupAlive(pid)).toBe(false);
  });

  it.runIf(posix)('ends a cooperative tree with SIGTERM', async () => {
    const pidFile = join(dir, 'pid');
    const child = spawnFixture('sleeper.mjs', '--grandchild', '--pid-file', pidFile);
    await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(grandchild);
    await stopProcessTree(child, { graceMs: 20_000 });
    expect((await exited(child)).signal).toBe('SIGTERM');
    expect(isRunning(grandchild)).toBe(false);
  });

  it.runIf(posix)('reaps what a child left behind after it exited', async () => {
    const pidFile = join(dir, 'pid');
    const child = spawnFixture('sleeper.mjs', '--grandchild', '--ignore-term', '--exit', '--pid-file', pidFile);
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(grandchild);
    expect(isRunning(grandchild)).toBe(true);

    await stopProcessTree(child, { graceMs: 100 });
    expect(isRunning(grandchild)).toBe(false);
  });
});

/** The Windows stop path run on Linux with a taskkill stand-in (tests/fixtures/cli/taskkill-stand-in.mjs). */
function taskkillStandIn(...flags: string[]): TreeKill {
  return {
    kind: 'taskkill',
    command: (pid) => {
      const [program, ...args] = fixture('taskkill-stand-in.mjs', ...flags, ...taskkillCommand(pid).args);
      return { program: program!, args };
    },
  };
}

describe('stopProcessTree when taskkill fails', () => {
  it.runIf(posix)('falls back to child.kill() and says what may still run', async () => {
    const pidFile = join(dir, 'pid');
    const log = join(dir, 'taskkill.log');
    const child = spawnFixture('sleeper.mjs', '--ignore-term', '--pid-file', pidFile);
    await pidFrom(pidFile);

    const result = await stopProcessTree(child, {
      treeKill: taskkillStandIn('--refuse', '--log', log),
      exitWaitMs: 5000,
    });

    expect(result.exited).toBe(true);
    expect(result.problems).toEqual([
      expect.stringMatching(/^taskkill failed \(exit 1: ERROR: .*Access is denied\.\); its descendants may still run$/),
    ]);
    expect((await exited(child)).signal).toBe('SIGKILL');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(log, 'utf8').trim()).toBe(`/PID ${child.pid} /T /F`);
  });

  it('never waits without bound for a child that survives every kill', async () => {
    // A child whose TerminateProcess is denied: kill() does nothing and 'exit' never comes.
    const unkillable = Object.assign(new EventEmitter(), {
      pid: 2 ** 22 + 7,
      exitCode: null,
      signalCode: null,
      stdin: new PassThrough(),
      kill: () => false,
    }) as unknown as AgentChild;

    const result = await stopProcessTree(unkillable, { treeKill: taskkillStandIn('--refuse'), exitWaitMs: 300 });

    expect(result.exited).toBe(false);
    expect(result.problems).toHaveLength(2);
    expect(result.problems[1]).toBe(`process ${2 ** 22 + 7} did not exit within 300 ms of being killed`);
  });
});
