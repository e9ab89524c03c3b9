/**
 * The foreground `contactor serve` as a real child process: after its banner it says what happens — a line
 * per config reload (applied, or not with the file:line of the problem), a line per task state change — and
 * "stopped" on Ctrl-C; `--quiet` keeps only the banner and "stopped". Every wait is for a printed line.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { cleanEnv, runCli, startCli } from './run-cli.js';

const dirs: string[] = [];
afterAll(async () => {
  const { rmSync } = await import('node:fs');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function served(extraArgs: string[] = [], agents: Record<string, unknown> = { echo: echoAgent() }) {
  const dir = tempDir();
  dirs.push(dir);
  const { configPath } = writeTestConfig(dir, { agents });
  const env = cleanEnv(mkdtempSync(path.join(dir, 'home-')));
  const serve = startCli(['serve', '-c', configPath, '--port', '0', ...extraArgs], { env });
  const cli = (args: string[]) => runCli([...args, '-c', configPath], { env });
  return { configPath, serve, cli };
}

describe('contactor serve in the foreground', () => {
  it('prints a line per reload and per task state change, and "stopped" on Ctrl-C', async () => {
    const { configPath, serve, cli } = served();
    await serve.stdoutMatch(/contactor bridge on \S+ — 1 agent \(echo\)\n/);

    const sent = await cli(['send', 'echo', 'hello', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const id = sent.json<{ id: string }>().id;
    await serve.stdoutMatch(new RegExp(`task ${id} \\(echo\\): completed\\n`));
    expect(serve.child.exitCode).toBeNull();

    const good = readFileSync(configPath, 'utf8');
    appendFileSync(
      configPath,
      `  shout:\n    kind: subprocess_cli\n    command: ${JSON.stringify(echoAgent().command)}\n`,
    );
    await serve.stdoutMatch(/config reloaded: 2 agents \(echo, shout\); added shout\n/);
    // A changed agent is named, with the settings that changed.
    appendFileSync(configPath, `    description: shouts back\n    env:\n      LOUD: "1"\n`);
    await serve.stdoutMatch(/config reloaded: 2 agents \(echo, shout\); changed shout \(description, env\)\n/);

    writeFileSync(configPath, `${good}  broken:\n    kind: subprocess_cli\n`);
    const refused = await serve.stdoutMatch(/config not applied, the last good one stays: (.*)\n/);
    expect(refused[1]).toMatch(new RegExp(`${path.basename(configPath)}:\\d+`));

    serve.child.kill('SIGINT');
    const run = await serve.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nstopped\n$/);
    // Every state the task went through, in order, one line each.
    const states = [...run.stdout.matchAll(new RegExp(`task ${id} \\(echo\\): (\\S+)`, 'g'))].map((m) => m[1]);
    expect(states.at(-1)).toBe('completed');
    expect(states).toContain('working');
    expect(new Set(states).size).toBe(states.length);
  });

  it("prints a line when an agent's process starts and when it ends", async () => {
    const { serve, cli } = served([], { acp: fakeAcpAgent() });
    await serve.stdoutMatch(/contactor bridge on \S+ — 1 agent \(acp\)\n/);
    const sent = await cli(['send', 'acp', 'hello', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const started = await serve.stdoutMatch(/agent acp started \(pid (\d+)\)\n/);
    serve.child.kill('SIGINT');
    const run = await serve.done;
    expect(run.code).toBe(0);
    // Stopping the bridge stops the agent: its end is said before "stopped".
    expect(run.stdout).toMatch(
      new RegExp(`agent acp exited \\((code|signal) \\S+, pid ${started[1]}\\)\\n[^]*stopped\\n$`),
    );
  });

  it('--quiet prints the banner and "stopped" only', async () => {
    const { configPath, serve, cli } = served(['--quiet']);
    await serve.stdoutMatch(/contactor bridge on /);
    expect((await cli(['send', 'echo', 'hello'])).code).toBe(0);
    appendFileSync(
      configPath,
      `  shout:\n    kind: subprocess_cli\n    command: ${JSON.stringify(echoAgent().command)}\n`,
    );
    const reloaded = await cli(['reload']);
    expect(reloaded.code, reloaded.stderr).toBe(0);
    serve.child.kill('SIGINT');
    const run = await serve.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^contactor bridge on \S+ — 1 agent \(echo\)\nstopped\n$/);
  });
});
