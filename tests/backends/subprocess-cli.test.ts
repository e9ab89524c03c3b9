import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliBackend, type CliBackendOptions } from '../../main/backends/subprocess-cli/backend.js';
import { DECISION_CONTRACT, parseDecision, withDecisionContract } from '../../main/domain/decision-contract.js';
import type { Part } from '../../main/domain/task.js';
import type { Turn, TurnReporter } from '../../main/ports.js';
import { taskkillCommand, type TreeKill } from '../../main/backends/process/process-tree.js';
import { SubprocessCliAgentSchema } from '../../main/schema/config.js';
import { childEnvAsGiven, fixture, isRunning, pidFrom } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const posix = process.platform !== 'win32';
const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  CONTACTOR_URL: 'http://127.0.0.1:8791',
  CONTACTOR_TOKEN: 'test-token',
  CONTACTOR_AGENT: 'cli',
};
let dir: string;
const backends: CliBackend[] = [];
const pids: number[] = [];

function backend(config: Record<string, unknown>, extra: Partial<CliBackendOptions> = {}): CliBackend {
  const parsed = SubprocessCliAgentSchema.parse({ kind: 'subprocess_cli', ...config });
  const made = new CliBackend({ name: 'cli', config: parsed, baseEnv: BASE_ENV, stopGraceMs: 200, ...extra });
  backends.push(made);
  return made;
}

function turn(overrides: Partial<Turn> = {}): Turn {
  return {
    taskId: 'task-1',
    contextId: 'ctx-1',
    messageId: 'msg-1',
    agent: 'cli',
    text: 'hello',
    attachments: [],
    delegationDepth: 1,
    visitedAgents: ['claude', 'cli'],
    followUp: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A TurnReporter that records every call. */
function recorder() {
  const texts: string[] = [];
  const receipts: Record<string, unknown>[] = [];
  const reporter: TurnReporter = {
    text: (chunk) => texts.push(chunk),
    content: () => {
      throw new Error('a CLI run reports text only');
    },
    progress: () => undefined,
    receipt: (facts) => receipts.push(facts),
    askPermission: () => Promise.reject(new Error('a CLI run never asks for permission')),
  };
  return { reporter, texts, receipts, receipt: () => Object.assign({}, ...receipts) as Record<string, unknown> };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contactor-cli-test-'));
});

afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.close()));
  for (const pid of pids.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('CliBackend', () => {
  it('declares what a plain CLI cannot do', () => {
    expect(backend({ command: fixture('silent.mjs') }).traits).toMatchObject({
      backend: 'subprocess_cli',
      streaming: false,
      inputRequired: true,
      interruptible: true,
      multiTurn: false,
      limits: expect.stringContaining('the reply arrives in one piece'),
    });
    // Without the decision contract a plain CLI has no way to ask.
    expect(backend({ command: fixture('silent.mjs') }, { decisionContract: false }).traits.inputRequired).toBe(false);
  });

  it('writes the prompt to stdin and reports stdout once at exit', async () => {
    const rec = recorder();
    const outcome = await backend({ command: fixture('echo-stdin.mjs') }).run(
      turn({ text: 'hi there\nline 2' }),
      rec.reporter,
    );
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(rec.texts).toEqual(['hi there\nline 2']);
    expect(rec.receipt()).toMatchObject({
      pid: expect.any(Number),
      exitCode: 0,
      executionForm: 'subprocess',
      promptVia: 'stdin',
    });
    expect(typeof rec.receipt().startedAt).toBe('string');
    expect(typeof rec.receipt().durationMs).toBe('number');
    expect(rec.receipt()).not.toHaveProperty('signal');
  });

  it('passes the prompt as the last argument after prompt_flag and closes stdin', async () => {
    const rec = recorder();
    const cli = backend({ command: fixture('echo-args.mjs', 'fixed'), prompt_via: 'arg', prompt_flag: ['-z'] });
    const outcome = await cli.run(turn({ text: 'do the thing; $(rm -rf /)' }), rec.reporter);
    expect(outcome.kind).toBe('completed');
    expect(JSON.parse(rec.texts[0]!)).toEqual({ args: ['fixed', '-z', 'do the thing; $(rm -rf /)'], stdin: '' });
    expect(rec.receipt().promptVia).toBe('arg');
  });

  it('writes attachments to a temp dir, lists them before the contract, and removes them after', async () => {
    const attachments: Part[] = [
      {
        kind: 'file',
        file: { name: '../notes file.txt', mimeType: 'text/plain', bytes: Buffer.from('file body').toString('base64') },
      },
      { kind: 'data', data: { answer: 42 } },
      { kind: 'file', file: { uri: 'https://example.com/spec.pdf', mimeType: 'application/pdf' } },
    ];
    const rec = recorder();
    const cli = backend({ command: fixture('read-attachments.mjs') });
    await cli.run(turn({ text: withDecisionContract('review these'), attachments }), rec.reporter);

    const { prompt, files } = JSON.parse(rec.texts[0]!) as { prompt: string; files: Record<string, string | null> };
    expect(prompt.startsWith('review these\n\nAttached files:\n- ')).toBe(true);
    expect(prompt.endsWith(DECISION_CONTRACT)).toBe(true);
    expect(prompt).toContain('- https://example.com/spec.pdf (application/pdf) (not downloaded)');
    const contents = Object.values(files);
    expect(contents[0]).toBe('file body');
    expect(JSON.parse(contents[1]!)).toEqual({ answer: 42 });
    const written = Object.keys(files);
    expect(written[0]!.endsWith('1-notes file.txt')).toBe(true);
    expect(existsSync(dirname(written[0]!))).toBe(false);
  });

  it('gives the agent its per-task identity and config env, but nothing else of the bridge env', async () => {
    process.env.SECRET_X = 'must-not-leak';
    try {
      const rec = recorder();
      await backend({ command: fixture('env-dump.mjs', '--all'), env: { MY_SETTING: 'on' } }).run(turn(), rec.reporter);
      expect(childEnvAsGiven(JSON.parse(rec.texts[0]!), BASE_ENV)).toEqual({
        ...BASE_ENV,
        MY_SETTING: 'on',
        CONTACTOR_TASK_ID: 'task-1',
        CONTACTOR_CONTEXT_ID: 'ctx-1',
        CONTACTOR_MESSAGE_ID: 'msg-1',
        CONTACTOR_DEPTH: '1',
        CONTACTOR_VISITED: 'claude,cli',
        CONTACTOR_SPAWN: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      });
    } finally {
      delete process.env.SECRET_X;
    }
  });

  it('classifies a non-zero exit as a failure a retry cannot fix, with the stderr tail', async () => {
    const rec = recorder();
    const command = fixture('exit-code.mjs', '3', 'warming up', 'config file missing');
    const outcome = await backend({ command }).run(turn(), rec.reporter);
    expect(outcome).toEqual({
      kind: 'failed',
      retryable: false,
      exitCode: 3,
      reason: `${process.execPath} exited with code 3: config file missing`,
      stderrTail: 'warming up\nconfig file missing\n',
    });
    expect(rec.texts).toEqual(['partial']);
    expect(rec.receipt().exitCode).toBe(3);
  });

  it('reports a program that cannot start as undelivered', async () => {
    const rec = recorder();
    const outcome = await backend({ command: ['/nonexistent/agent-cli', '--x'] }).run(turn(), rec.reporter);
    expect(outcome).toMatchObject({ kind: 'undelivered', retryable: false });
    expect(outcome.kind === 'undelivered' && outcome.reason).toMatch(
      /^could not start \/nonexistent\/agent-cli: .*ENOENT.*; install \/nonexistent\/agent-cli, or put its full path in config.yaml \(agents\.[\w-]+\.command\)$/,
    );
    expect(rec.receipts).toEqual([]);
  });

  it('reports a missing working directory as undelivered', async () => {
    const outcome = await backend({ command: fixture('silent.mjs'), cwd: join(dir, 'nope') }).run(
      turn(),
      recorder().reporter,
    );
    expect(outcome).toMatchObject({
      kind: 'undelivered',
      retryable: false,
      reason: expect.stringContaining('create the folder, or fix `cwd:` in config.yaml'),
    });
  });

  it('runs in the configured working directory', async () => {
    const rec = recorder();
    const cli = backend({ command: [process.execPath, '-e', 'process.stdout.write(process.cwd())'], cwd: dir });
    await cli.run(turn(), rec.reporter);
    expect(rec.texts).toEqual([dir]);
  });

  it('completes a child that floods stderr', async () => {
    const rec = recorder();
    const outcome = await backend({ command: fixture('flood-stderr.mjs') }).run(turn(), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(rec.texts).toEqual(['ok']);
  });

  it('completes with no text when the agent prints nothing', async () => {
    const rec = recorder();
    expect(await backend({ command: fixture('silent.mjs') }).run(turn(), rec.reporter)).toEqual({
      kind: 'completed',
      exitCode: 0,
    });
    expect(rec.texts).toEqual([]);
    expect(rec.receipt().stdoutBytes).toBe(0);
  });

  it('caps stdout and records the truncation', async () => {
    const rec = recorder();
    const cli = backend({ command: fixture('echo-stdin.mjs') }, { maxOutputBytes: 10 });
    await cli.run(turn({ text: 'x'.repeat(100) }), rec.reporter);
    expect(rec.texts).toEqual(['x'.repeat(10)]);
    expect(rec.receipt()).toMatchObject({ stdoutBytes: 100, stdoutTruncated: true });
  });

  it('does not start anything for an already aborted turn', async () => {
    const rec = recorder();
    const outcome = await backend({ command: fixture('silent.mjs') }).run(
      turn({ signal: AbortSignal.abort() }),
      rec.reporter,
    );
    expect(outcome).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    expect(rec.receipts).toEqual([]);
  });

  it.runIf(posix).each([
    ['a cooperative tree', []],
    ['a tree that ignores SIGTERM', ['--ignore-term']],
  ])('on abort, stops %s including the grandchild', async (_name, flags) => {
    const pidFile = join(dir, 'pid');
    const abort = new AbortController();
    const cli = backend({ command: fixture('sleeper.mjs', ...flags, '--grandchild', '--pid-file', pidFile) });
    const running = cli.run(turn({ signal: abort.signal }), recorder().reporter);
    const pid = await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(pid, grandchild);

    abort.abort();

    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
  });

  /** Windows' stop path on Linux: taskkill is a stand-in (tests/fixtures/cli/taskkill-stand-in.mjs). */
  const taskkillStandIn = (flag: string): TreeKill => ({
    kind: 'taskkill',
    command: (pid) => {
      const [program, ...args] = fixture('taskkill-stand-in.mjs', flag, ...taskkillCommand(pid).args);
      return { program: program!, args };
    },
  });

  it.runIf(posix)(
    'a cancelled turn still ends when taskkill fails, and the receipt says what may be left',
    async () => {
      const pidFile = join(dir, 'pid');
      const abort = new AbortController();
      const rec = recorder();
      const cli = backend(
        { command: fixture('sleeper.mjs', '--ignore-term', '--pid-file', pidFile) },
        { treeKill: taskkillStandIn('--refuse'), taskkillWaitMs: TEST_TIMEOUT_MS },
      );
      const running = cli.run(turn({ signal: abort.signal }), rec.reporter);
      const pid = await pidFrom(pidFile);
      pids.push(pid);

      abort.abort();

      expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
      expect(isRunning(pid)).toBe(false);
      expect(rec.receipt().unstopped).toEqual([expect.stringContaining('taskkill failed (exit 1: ERROR:')]);
    },
  );

  it.runIf(posix)(
    'a child that outlives its tree kill is still ended by the sweep of its marked descendants',
    async () => {
      // The bounded wait for a child that survives every kill is proven in child-process.test.ts (stopProcessTree);
      // here, on Linux, the spawn-mark sweep (stop-all.ts) ends what a pretending taskkill left running.
      // The stand-in may take as long as the test allows to answer (a Node start on a loaded machine takes
      // seconds); the exit wait after it may be short, because nothing ends the child before the sweep does.
      const pidFile = join(dir, 'pid');
      const abort = new AbortController();
      const rec = recorder();
      const cli = backend(
        { command: fixture('sleeper.mjs', '--ignore-term', '--pid-file', pidFile) },
        { treeKill: taskkillStandIn('--pretend'), taskkillWaitMs: TEST_TIMEOUT_MS, exitWaitMs: 300 },
      );
      const running = cli.run(turn({ signal: abort.signal }), rec.reporter);
      const pid = await pidFrom(pidFile);
      pids.push(pid);

      abort.abort();

      expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
      expect(isRunning(pid)).toBe(false);
      expect(rec.receipt().unstopped).toBeUndefined();
    },
  );

  it.runIf(posix)(
    'finishes when the child exits while a grandchild holds stdout, then reaps the grandchild',
    async () => {
      const pidFile = join(dir, 'pid');
      const rec = recorder();
      const cli = backend(
        { command: fixture('sleeper.mjs', '--grandchild', '--ignore-term', '--exit', '--pid-file', pidFile) },
        { drainMs: 100 },
      );
      const outcome = await cli.run(turn(), rec.reporter);
      const grandchild = await pidFrom(`${pidFile}.gc`);
      pids.push(grandchild);

      expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
      expect(rec.texts).toEqual(['parent done']);
      await eventually(() => !isRunning(grandchild));
    },
  );

  it.runIf(posix)('fails without retry when something else kills the agent', async () => {
    const pidFile = join(dir, 'pid');
    const running = backend({ command: fixture('sleeper.mjs', '--pid-file', pidFile) }).run(
      turn(),
      recorder().reporter,
    );
    const pid = await pidFrom(pidFile);
    process.kill(pid, 'SIGKILL');
    expect(await running).toMatchObject({
      kind: 'failed',
      retryable: false,
      reason: `${process.execPath} was killed by signal SIGKILL`,
    });
  });

  it.runIf(posix)('close() stops running trees, waits for them, and refuses new runs', async () => {
    const pidFile = join(dir, 'pid');
    const cli = backend({ command: fixture('sleeper.mjs', '--ignore-term', '--grandchild', '--pid-file', pidFile) });
    const running = cli.run(turn(), recorder().reporter);
    const pid = await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(pid, grandchild);

    await cli.close();

    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    expect(await cli.run(turn(), recorder().reporter)).toMatchObject({ kind: 'undelivered', retryable: true });
  });
});

describe('the built-in echo agent', () => {
  const echo = (): CliBackend =>
    backend({ command: [process.execPath, join(import.meta.dirname, '../../resources/agents/echo-agent.mjs')] });

  it('echoes the requester text without the decision contract', async () => {
    const rec = recorder();
    expect(await echo().run(turn({ text: withDecisionContract('hello') }), rec.reporter)).toMatchObject({
      kind: 'completed',
    });
    expect(rec.texts).toEqual(['echo: hello\n']);
  });

  it('asks a valid decision for "decide:" and finishes once told the choice', async () => {
    const ask = recorder();
    await echo().run(turn({ text: withDecisionContract('pick a format. decide: YAML|TOML') }), ask.reporter);
    expect(parseDecision(ask.texts[0]!)).toMatchObject({ options: ['YAML', 'TOML'], recommend: 'YAML' });

    const answer = recorder();
    const followUp =
      'pick a format. decide: YAML|TOML\n\n---\nYou asked: which?\nThe requester chose: TOML\nContinue with that choice.';
    await echo().run(turn({ text: withDecisionContract(followUp) }), answer.reporter);
    expect(answer.texts).toEqual(['Going with TOML. Done.\n']);
  });
});
