/**
 * The subprocess_cli backend on real Windows (run by `npm run test:windows` under the Windows Node): agents
 * found on PATH × PATHEXT, a hand-written `.cmd` run through `cmd.exe /d /s /c`, an npm-style shim run as
 * `node.exe <script>` directly, a plain `node.exe`, and stopping a whole tree with `taskkill /T` on cancel,
 * on close and on a task timeout in the bridge.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliBackend } from '../../main/backends/subprocess-cli/backend.js';
import { withDecisionContract } from '../../main/domain/decision-contract.js';
import type { Turn, TurnReporter } from '../../main/ports.js';
import { SubprocessCliAgentSchema } from '../../main/schema/config.js';
import { fixtureAgent, startTestBridge } from '../helpers/bridge.js';
import { FIXTURES, isRunning, pidFrom } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';

const NODE_DIR = path.dirname(process.execPath);
let dir: string;
let bin: string;
const backends: CliBackend[] = [];
const pids: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-win32-'));
  bin = path.join(dir, 'bin');
  mkdirSync(bin);
});
afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.close()));
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Windows batch files keep CRLF line endings. */
const batch = (lines: string[]): string => lines.map((l) => `${l}\r\n`).join('');

/** A hand-written wrapper (no npm shim pattern), so the bridge must run it through cmd.exe. */
function handWrittenCmd(name: string, script: string): void {
  writeFileSync(
    path.join(bin, `${name}.cmd`),
    batch([
      '@echo off',
      'setlocal',
      'rem a wrapper written by hand',
      `"%AGENT_NODE%" "${script}" %*`,
      'exit /b %ERRORLEVEL%',
    ]),
  );
}

/** What npm's cmd-shim (npm 10) writes for a package bin, pointing at `node_modules/agent/<script>`. */
function npmShim(name: string, script: string): void {
  mkdirSync(path.join(bin, 'node_modules', 'agent'), { recursive: true });
  writeFileSync(path.join(bin, 'node_modules', 'agent', path.basename(script)), `import '${pathUrl(script)}';\n`);
  writeFileSync(
    path.join(bin, `${name}.cmd`),
    batch([
      '@ECHO off',
      'GOTO start',
      ':find_dp0',
      'SET dp0=%~dp0',
      'EXIT /b',
      ':start',
      'SETLOCAL',
      'CALL :find_dp0',
      'IF EXIST "%dp0%\\node.exe" (',
      '  SET "_prog=%dp0%\\node.exe"',
      ') ELSE (',
      '  SET "_prog=node"',
      '  SET PATHEXT=%PATHEXT:;.JS;=;%',
      ')',
      `endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\agent\\${path.basename(script)}" %*`,
    ]),
  );
}

const pathUrl = (file: string): string => new URL(`file:///${file.replaceAll('\\', '/')}`).href;

function backend(config: Record<string, unknown>): CliBackend {
  const parsed = SubprocessCliAgentSchema.parse({ kind: 'subprocess_cli', ...config });
  const made = new CliBackend({
    name: 'win',
    config: parsed,
    baseEnv: {
      Path: `${bin};${NODE_DIR};${process.env.SystemRoot ?? 'C:\\windows'}\\system32`,
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
      ComSpec: process.env.ComSpec ?? 'C:\\windows\\system32\\cmd.exe',
      SystemRoot: process.env.SystemRoot ?? 'C:\\windows',
      AGENT_NODE: process.execPath,
      ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
    },
    stopGraceMs: 200,
  });
  backends.push(made);
  return made;
}

function turn(text: string, signal: AbortSignal = new AbortController().signal): Turn {
  return {
    taskId: 'task-1',
    contextId: 'ctx-1',
    messageId: 'msg-1',
    agent: 'win',
    text,
    attachments: [],
    delegationDepth: 1,
    visitedAgents: ['win'],
    followUp: false,
    signal,
  };
}

function recorder() {
  const texts: string[] = [];
  const receipts: Record<string, unknown>[] = [];
  const reporter = {
    receipt: (r: Record<string, unknown>) => receipts.push(r),
    text: (t: string) => texts.push(t),
    progress: () => undefined,
  } as unknown as TurnReporter;
  return { texts, receipts, reporter };
}

const fixture = (name: string): string => path.join(FIXTURES, name);
const ARGS = ['a&b', 'x|y', '<in>', '(paren)', 'with space', 'semi;colon', 'comma,here'];

describe('agents found on PATH × PATHEXT', () => {
  it('runs a hand-written .cmd by its bare name through cmd.exe, the prompt on stdin, decision contract intact', async () => {
    handWrittenCmd('hand-agent', fixture('echo-prompt.mjs'));
    const rec = recorder();
    const prompt = withDecisionContract('review the patch\nthen reply');
    const outcome = await backend({ command: ['hand-agent'] }).run(turn(prompt), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(rec.texts.join('')).toBe(prompt);
  });

  it('passes cmd metacharacters through a hand-written .cmd as single arguments', async () => {
    handWrittenCmd('hand-args', fixture('echo-args.mjs'));
    const rec = recorder();
    const outcome = await backend({ command: ['hand-args', ...ARGS] }).run(turn('p'), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(JSON.parse(rec.texts.join(''))).toEqual({ args: ARGS, stdin: 'p' });
  });

  it('runs an npm shim as node.exe <script> directly: no cmd.exe, every argument verbatim', async () => {
    npmShim('shim-agent', fixture('echo-args.mjs'));
    const args = [...ARGS, '100%', '%PATH%', 'say "hi"', 'x^y', '!bang!', 'C:\\dir\\'];
    const rec = recorder();
    const outcome = await backend({ command: ['shim-agent', ...args] }).run(turn('via stdin'), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(JSON.parse(rec.texts.join(''))).toEqual({ args, stdin: 'via stdin' });
  });

  it('finds node.exe by its bare name and runs it directly, the prompt as an argument', async () => {
    const rec = recorder();
    const prompt = 'one line, "quoted" & 100%';
    const outcome = await backend({
      command: ['node', fixture('echo-prompt.mjs')],
      prompt_via: 'arg',
      prompt_flag: ['--'],
    }).run(turn(prompt), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(rec.texts.join('')).toBe(prompt);
  });

  it('reports the exit code of a .cmd agent as a failure with its stderr', async () => {
    writeFileSync(path.join(bin, 'failing.cmd'), batch(['@echo off', 'echo disk on fire 1>&2', 'exit /b 7']));
    const outcome = await backend({ command: ['failing'] }).run(turn('x'), recorder().reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
    expect(JSON.stringify(outcome)).toContain('exited with code 7');
    expect(JSON.stringify(outcome)).toContain('disk on fire');
  });

  it('names a program that is nowhere on PATH', async () => {
    const outcome = await backend({ command: ['no-such-agent'] }).run(turn('x'), recorder().reporter);
    expect(outcome).toMatchObject({ kind: 'undelivered', retryable: false });
    expect(JSON.stringify(outcome)).toContain('could not start no-such-agent');
  });

  it('delivers a multi-line prompt with the decision contract to a .cmd agent with prompt_via: arg', async () => {
    // The prompt travels in a UTF-8 file named by a one-line argument; the agent reads it.
    handWrittenCmd('arg-agent', fixture('follow-prompt-file.mjs'));
    const prompt = withDecisionContract('first line\nsecond line');
    const config = { command: ['arg-agent'], prompt_via: 'arg', prompt_flag: ['--'] };
    const rec = recorder();
    const outcome = await backend(config).run(turn(prompt), rec.reporter);
    expect(outcome).toEqual({ kind: 'completed', exitCode: 0 });
    expect(rec.texts.join('')).toContain('first line\nsecond line');
  });
});

describe('stopping a tree with taskkill /T', () => {
  it.each([
    [
      'a node.exe agent',
      (pidFile: string) => [process.execPath, fixture('sleeper.mjs'), '--grandchild', '--pid-file', pidFile],
    ],
    [
      'a .cmd agent (cmd.exe → node.exe → grandchild)',
      (pidFile: string) => {
        handWrittenCmd('sleepy', fixture('sleeper.mjs'));
        return ['sleepy', '--grandchild', '--pid-file', pidFile];
      },
    ],
  ])('on cancel, ends %s and its grandchild', async (_name, command) => {
    // prettier-ignore
    const pidFile = path.join(dir, 'pid');
    const abort = new AbortController();
    const running = backend({ command: command(pidFile) }).run(turn('x', abort.signal), recorder().reporter);
    const pid = await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(pid, grandchild);
    expect(isRunning(grandchild)).toBe(true);

    abort.abort();

    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    await eventually(() => !isRunning(pid) && !isRunning(grandchild));
  });

  it('close() ends running trees and refuses new runs', async () => {
    const pidFile = path.join(dir, 'pid');
    const cli = backend({ command: [process.execPath, fixture('sleeper.mjs'), '--grandchild', '--pid-file', pidFile] });
    const running = cli.run(turn('x'), recorder().reporter);
    const pid = await pidFrom(pidFile);
    const grandchild = await pidFrom(`${pidFile}.gc`);
    pids.push(pid, grandchild);

    await cli.close();

    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    await eventually(() => !isRunning(pid) && !isRunning(grandchild));
    expect(await cli.run(turn('x'), recorder().reporter)).toMatchObject({ kind: 'undelivered', retryable: true });
  });

  it('a task past its timeout_s fails as timed out and leaves no process behind', async () => {
    const pidFile = path.join(dir, 'pid');
    // The timeout must outlast the sleeper's start (node under Wine, on a busy machine) until both its pid
    // files are written: with 2 s the bridge killed it first, and the test then waited for files that never came.
    const test = await startTestBridge({
      agents: { slow: fixtureAgent('sleeper.mjs', { command: [process.execPath, fixture('sleeper.mjs'), '--grandchild', '--pid-file', pidFile], timeout_s: 20 }) },
    }); // prettier-ignore
    try {
      const sent = await test.rpc('message/send', { agent: 'slow', text: 'wait' });
      const task = sent.result as { status: { state: string; message?: { parts: { text?: string }[] } } };
      expect(task.status.state).toBe('failed');
      expect(task.status.message?.parts.map((p) => p.text).join('')).toContain('timed out after 20s');
      const pid = await pidFrom(pidFile);
      const grandchild = await pidFrom(`${pidFile}.gc`);
      pids.push(pid, grandchild);
      await eventually(() => !isRunning(pid) && !isRunning(grandchild));
    } finally {
      await test.cleanup();
    }
  });
});
