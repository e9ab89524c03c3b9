/**
 * Config edits reach a running bridge without a restart, end to end: a detached bridge
 * started by `contactor up`, its config file edited on disk, and every observation made through the CLI.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/bridge.js';
import { pollUntil } from '../helpers/wait.js';
import { cleanEnv, closedPort, runCli } from './run-cli.js';

interface Task {
  id: string;
  status: { state: string; message?: { parts: { text: string }[] } };
  metadata: Record<string, unknown>;
}

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'cli');
const node = (script: string, ...args: string[]) => [process.execPath, script, ...args];
const slow = {
  kind: 'subprocess_cli',
  command: node(path.join(REPO_ROOT, 'tests/cli/fixtures/slow-reply.mjs'), '1500'),
};
const echoArgs = { kind: 'subprocess_cli', command: node(path.join(FIXTURES, 'echo-args.mjs'), 'v2') };
const echoStdin = { kind: 'subprocess_cli', command: node(path.join(FIXTURES, 'echo-stdin.mjs')) };
const sleeper = { kind: 'subprocess_cli', command: node(path.join(FIXTURES, 'sleeper.mjs')) };

let dir: string;
let cfg: string;
let dataDir: string;
let port: number;
let env: Record<string, string>;
const cli = (...args: string[]) => runCli([...args, '-c', cfg, '--data-dir', dataDir], { env });

function writeConfig(agents: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  writeFileSync(cfg, stringify({ port, data_dir: dataDir, ...extra, agents }));
}

const agentNames = async () =>
  (await cli('agents', '--json')).json<{ agents: { name: string }[] }>().agents.map((a) => a.name);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-reload-'));
  cfg = path.join(dir, 'config.yaml');
  dataDir = path.join(dir, 'data');
  port = await closedPort();
  env = cleanEnv(dir);
  writeConfig({ greeter: slow, sleepy: sleeper });
  const up = await runCli(['up', '-c', cfg], { env });
  expect(up.code, up.stderr).toBe(0);
});
afterAll(async () => {
  await runCli(['down', '-c', cfg, '--data-dir', dataDir], { env });
  rmSync(dir, { recursive: true, force: true });
});

describe('config hot reload', () => {
  it('an agent added to the saved file is usable within seconds, without a reload command', async () => {
    writeConfig({ greeter: slow, sleepy: sleeper, extra: echoStdin });
    await pollUntil(agentNames, (names) => names.includes('extra'), 'the new agent');
    const sent = await cli('send', 'extra', 'hello from the new agent');
    expect(sent.stdout).toBe('hello from the new agent\n');
    expect(sent.code).toBe(0);
  });

  it('a changed agent: the running task finishes on its old definition, new work goes to the new one', async () => {
    const started = await cli('send', 'greeter', 'old definition', '--no-wait');
    const runningId = started.stdout.trim();
    // Started on the old definition (finished is fine too: a task still queued would run on the new one).
    await pollUntil(
      () => cli('get', runningId, '--json'),
      (run) => ['working', 'completed'].includes(run.json<Task>().status.state),
      'the task to start',
    );
    writeConfig({ greeter: echoArgs, sleepy: sleeper, extra: echoStdin });
    // The watcher may have applied the edit already; `reload` applies it now either way.
    const reload = await cli('reload');
    expect(reload.stdout).toMatch(
      /^reloaded .*config\.yaml: (changed greeter \(command\)|nothing new; the bridge applied the saved edit at \S+: changed greeter \(command\))\n$/,
    );
    expect(reload.code).toBe(0);

    const fresh = await cli('send', 'greeter', 'new work');
    expect(JSON.parse(fresh.stdout)).toEqual({ args: ['v2'], stdin: 'new work' });
    const old = await cli('watch', runningId);
    expect(old.stdout).toContain('slow: old definition');
    expect(old.code).toBe(0);
  });

  it('a removed agent: gone from the list; its queued task fails with a clear, retryable reason', async () => {
    const first = (await cli('send', 'sleepy', 'one', '--no-wait')).stdout.trim();
    const queued = (await cli('send', 'sleepy', 'two', '--no-wait')).stdout.trim();
    // The first has started (a task still queued when its agent goes fails with the second).
    await pollUntil(
      () => cli('get', first, '--json'),
      (run) => run.json<Task>().status.state === 'working',
      'the first task to start',
    );
    writeConfig({ greeter: echoArgs, extra: echoStdin });
    expect((await cli('reload')).code).toBe(0);
    expect(await agentNames()).not.toContain('sleepy');
    expect((await cli('send', 'sleepy', 'three')).code).toBe(2);
    // The running task keeps running on its definition until it ends (here: canceled).
    expect((await cli('get', first, '--json')).json<Task>().status.state).toBe('working');
    expect((await cli('cancel', first)).code).toBe(0);

    const failed = await cli('watch', queued, '--json');
    expect(failed.code).toBe(1);
    const task = failed.json<Task>();
    expect(task.metadata.retryable).toBe(true);
    expect(task.status.message!.parts[0]!.text).toContain('agent "sleepy" was removed from the config');
  });

  it('an invalid edit keeps the last good config and shows file:line: key in status, doctor, the log and reload', async () => {
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(/agents:\n/, 'agents:\n  broken:\n    kind: subprocess_cli\n'),
    );
    // The same words `contactor config check` gives for the file.
    const check = await cli('config', 'check');
    expect(check.code).toBe(2);
    const problem = new RegExp(`${cfg}:\\d+: agents\\.broken\\.command:`).exec(check.stderr)![0];

    const status = await pollUntil(
      () => cli('status'),
      (run) => run.stdout.includes('NOT in use'),
      'status to report the bad edit',
    );
    expect(status.stdout).toContain(problem);
    expect(status.code).toBe(0);
    const doctor = await cli('doctor');
    expect(doctor.stdout).toContain(`✗ config in use: the bridge could not apply the latest edit`);
    expect(doctor.stdout).toContain(problem);
    expect(readFileSync(path.join(dataDir, 'logs', 'bridge.log'), 'utf8')).toContain(problem);
    const reload = await cli('reload');
    expect(reload.code).toBe(2);
    expect(reload.stderr).toContain(problem);
    expect(reload.stderr).toContain('keeps its last good config');
    // The last good config still serves.
    expect((await cli('send', 'extra', 'still here')).stdout).toBe('still here\n');
  });

  it('an alias bomb saved over the file keeps the bridge running on its last good config, naming the file', async () => {
    writeConfig({ greeter: echoArgs, extra: echoStdin });
    expect((await cli('reload')).code).toBe(0);
    // "Billion laughs": each level repeats the one before nine times; the yaml library refuses to expand it
    // with a ReferenceError ("Excessive alias count"), which once escaped the watcher and ended the process.
    const levels = ['  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i += 1)
      levels.push(
        `  l${i}: &l${i} [${Array(9)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    writeFileSync(cfg, `${readFileSync(cfg, 'utf8')}bomb:\n${levels.join('\n')}\n`);

    const status = await pollUntil(
      () => cli('status'),
      (run) => run.stdout.includes('NOT in use'),
      'the watcher to report the bomb',
    );
    expect(status.stdout).toContain(`${cfg}: invalid YAML: Excessive alias count`);
    expect((await cli('send', 'extra', 'still here')).stdout).toBe('still here\n');
    // Read at start (here by `config check`, as by `up`), the same file is named, not a bare ReferenceError.
    const check = await cli('config', 'check');
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(`${cfg}: invalid YAML: Excessive alias count`);
  });

  it('host, port and data_dir edits say they need a restart; the rest applies', async () => {
    writeConfig(
      { greeter: echoArgs, extra: echoStdin },
      { port: await closedPort(), max_delegation_depth: 5, max_concurrent_tasks: 4, history: { max_tasks: 500 } },
    );
    const reload = await cli('reload');
    expect(reload.code).toBe(0);
    // Only the start-only key is named: max_concurrent_tasks and history applied live.
    expect(reload.stdout).toContain('note: port changed; that takes a restart');
    const status = await cli('status');
    expect(status.stdout).not.toContain('NOT in use');
    expect(status.stdout).toContain('note: port changed');
  });
});
