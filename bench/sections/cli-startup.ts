/**
 * CLI start-up: wall time of a whole `contactor` process, from spawn to exit, against
 * a bare `node -e 0` on the same Node in the same run. The forms are run round-robin (one of each per
 * round) so load that drifts during the run touches every form alike; medians of `runs` rounds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { median, round } from '../lib/stats.js';

export interface CliForm {
  name: string;
  command: string;
  args: string[];
}

export interface CliStartupResult {
  runs: number;
  medianMs: Record<string, number>;
  /** A system Node older than the CLI needs, when one is on PATH: what the relaunch costs. */
  olderNode?: { path: string; version: string };
}

/** One process, spawn to exit; a non-zero exit fails the measurement (it measured an error path). */
function timeOnce(form: CliForm, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(form.command, form.args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${form.name} exited ${code}: ${stderr.trim()}`));
    });
  });
}

export async function measureCliStartup(opts: {
  forms: CliForm[];
  runs: number;
  warmup: number;
  env: NodeJS.ProcessEnv;
}): Promise<CliStartupResult> {
  const samples = new Map<string, number[]>(opts.forms.map((f) => [f.name, []]));
  for (let round_ = 0; round_ < opts.warmup + opts.runs; round_ += 1) {
    for (const form of opts.forms) {
      const ms = await timeOnce(form, opts.env);
      if (round_ >= opts.warmup) samples.get(form.name)!.push(ms);
    }
  }
  return {
    runs: opts.runs,
    medianMs: Object.fromEntries([...samples].map(([name, values]) => [name, round(median(values))])),
  };
}

/** The first `node` on PATH (outside node_modules) older than 22.14, the CLI's minimum. */
export function olderSystemNode(envPath: string | undefined): { path: string; version: string } | undefined {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    if (major < 22 || (major === 22 && minor < 14)) return { path: candidate, version };
    return undefined;
  }
  return undefined;
}
