/**
 * The default-port guard catches a test that reaches 127.0.0.1:8791, in the worker and in the processes tests
 * start, without listening there itself (the user's own bridge may hold the port while the tests run).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { portHolders } from '../../main/platform/port-holder.js';
import { cleanEnv, runCli } from '../cli/run-cli.js';
import { defaultPortHook, recordedConnects } from './default-port-guard.js';

const dir = mkdtempSync(path.join(tmpdir(), 'contactor-guard-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Node child with the hook recording to its own file (not the run's: these connects are on purpose). */
function reachDefault(log: string, how: string): Promise<string> {
  const script = {
    net: `require('node:net').connect(8791, '127.0.0.1').on('error', (e) => console.log(e.code)).on('connect', () => console.log('connected'))`,
    http: `require('node:http').get('http://localhost:8791/health').on('error', (e) => console.log(e.code)).on('response', () => console.log('answered'))`,
    fetch: `fetch('http://127.0.0.1:8791/health').then(() => console.log('answered'), (e) => console.log(e.cause?.code))`,
  }[how]!;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: defaultPortHook(log) },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out.trim()));
  });
}

describe('the default-port guard', () => {
  it.each(['net', 'http', 'fetch'])('a %s connect to 127.0.0.1:8791 is refused and recorded', async (how) => {
    const log = path.join(dir, `${how}.ndjson`);
    expect(await reachDefault(log, how)).toBe('ECONNREFUSED');
    const records = recordedConnects(log).map((line) => JSON.parse(line) as { where: string; argv: string[] });
    expect(records).toHaveLength(1);
    expect(records[0]!.where).toMatch(/^(127\.0\.0\.1|localhost):8791$/);
  });

  it('the CLI a test starts under a fresh HOME (its default config: the default address) is caught', async () => {
    const log = path.join(dir, 'cli.ndjson');
    const home = mkdtempSync(path.join(dir, 'home-'));
    const run = await runCli(['status'], { env: { ...cleanEnv(home), NODE_OPTIONS: defaultPortHook(log) } });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('no bridge running at http://127.0.0.1:8791');
    expect(recordedConnects(log).length).toBeGreaterThan(0);
  });

  it('this worker runs with the hook, and hands it to the processes tests start', () => {
    expect(process.env.NODE_OPTIONS).toContain('default-port-hook.mjs?log=');
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
