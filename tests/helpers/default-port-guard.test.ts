/**
 * The default-port guard catches a test that reaches 127.0.0.1:8791, in the worker and in the processes tests
 * start, without listening there itself (the user's own bridge may hold the port while the tests run).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { portHolders } from '../../main/platform/port-holder.js';
import { cleanEnv, runCli } from '../cli/run-cli.js';
import { defaultPortHook, guardDefaultPort, recordedConnects } from './default-port-guard.js';

const dir = mkdtempSync(path.join(tmpdir(), 'contactor-guard-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPTS: Record<string, string> = {
  net: `require('node:net').connect(8791, '127.0.0.1').on('error', (e) => console.log(e.code)).on('connect', () => console.log('connected'))`,
  http: `require('node:http').get('http://localhost:8791/health').on('error', (e) => console.log(e.code)).on('response', () => console.log('answered'))`,
  fetch: `fetch('http://127.0.0.1:8791/health').then(() => console.log('answered'), (e) => console.log(e.cause?.code))`,
};

/** A Node child with the hook recording to its own file (not the run's: these connects are on purpose). */
function reachDefault(log: string, args: string[]): Promise<{ out: string; err: string }> {
  return run(args, defaultPortHook(log));
}

function run(args: string[], nodeOptions: string | undefined): Promise<{ out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }) },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', () => resolve({ out: out.trim(), err }));
  });
}

describe('the default-port guard', () => {
  it.each(['net', 'http', 'fetch'])('a %s connect to 127.0.0.1:8791 is refused and recorded', async (how) => {
    const log = path.join(dir, `${how}.ndjson`);
    expect((await reachDefault(log, ['-e', SCRIPTS[how]!])).out).toBe('ECONNREFUSED');
    const records = recordedConnects(log).map((line) => JSON.parse(line) as { where: string; argv: string[] });
    expect(records).toHaveLength(1);
    expect(records[0]!.where).toMatch(/^(127\.0\.0\.1|localhost):8791$/);
  });

  // The stand-ins tests put on PATH for wsl.exe or Contactor.exe are Node scripts named like Windows programs:
  // the hook must neither stop them from running (an `--import` hook made Node load them as ES modules, which
  // refuses an unknown extension) nor miss their connects.
  // Its log (and so the preload beside it) in a folder with a space: NODE_OPTIONS still reads one path.
  it('a Node program named like a Windows program runs under the hook and is caught', async () => {
    const folder = path.join(dir, 'Program Files');
    mkdirSync(folder);
    const log = path.join(folder, 'exe.ndjson');
    const program = path.join(folder, 'wsl.exe');
    writeFileSync(program, `#!/usr/bin/env node\n${SCRIPTS.net}\n`);
    const run = await reachDefault(log, [program]);
    expect(run.err).toBe('');
    expect(run.out).toBe('ECONNREFUSED');
    const records = recordedConnects(log).map((line) => JSON.parse(line) as { where: string; argv: string[] });
    expect(records.map((r) => [r.where, r.argv[1]])).toEqual([['127.0.0.1:8791', program]]);
  });

  it('the CLI a test starts under a fresh HOME (its default config: the default address) is caught', async () => {
    const log = path.join(dir, 'cli.ndjson');
    const home = mkdtempSync(path.join(dir, 'home-'));
    const run = await runCli(['status'], { env: { ...cleanEnv(home), NODE_OPTIONS: defaultPortHook(log) } });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('no bridge running at http://127.0.0.1:8791');
    expect(recordedConnects(log).length).toBeGreaterThan(0);
  });

  it('the teardown fails the run on a recorded connect, with where it came from, and restores NODE_OPTIONS', async () => {
    const env: NodeJS.ProcessEnv = { NODE_OPTIONS: '--no-warnings' };
    const teardown = guardDefaultPort(env);
    expect(env.NODE_OPTIONS).toMatch(/^--no-warnings --require ".*connects\.ndjson\.preload\.cjs"$/);
    expect((await run(['-e', SCRIPTS.http!], env.NODE_OPTIONS)).out).toBe('ECONNREFUSED');
    const failure = await teardown().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^1 connection\(s\) to the default address 127\.0\.0\.1:8791 during the tests .*\n\{.*"where":"localhost:8791"/,
    );
    expect(env).toEqual({ NODE_OPTIONS: '--no-warnings' });
  });

  it('a run with no such connect tears down quietly', async () => {
    const env: NodeJS.ProcessEnv = {};
    const teardown = guardDefaultPort(env);
    expect((await run(['-e', 'console.log("ok")'], env.NODE_OPTIONS)).out).toBe('ok');
    await expect(teardown()).resolves.toBeUndefined();
    expect(env).toEqual({});
  });

  it('this worker runs with the hook, and hands it to the processes tests start', () => {
    expect(process.env.NODE_OPTIONS).toMatch(/--require ".*connects\.ndjson\.preload\.cjs"/);
    expect(cleanEnv(dir).NODE_OPTIONS).toBe(process.env.NODE_OPTIONS);
  });

  it.runIf(process.platform === 'linux')('nothing of this run listens on 127.0.0.1:8791', () => {
    const ours = new Set<number>();
    for (let pid: number | undefined = process.pid; pid !== undefined && pid > 1; pid = parentOf(pid)) ours.add(pid);
    expect(portHolders(8791).filter((holder) => ours.has(holder.pid))).toEqual([]);
  });
});

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
