/**
 * A `.cmd` agent with `prompt_via: arg`. cmd.exe cannot carry a line break in an argument
 * (it ends the command there; quoteCmdArg refuses it), and the decision contract makes every prompt
 * multi-line, so for a batch file run through cmd.exe the prompt goes to a file. The Windows lane runs the
 * real cmd.exe; here the Windows side is a fake file system, as in win32-command.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  cliCommandLine,
  promptFileArgument,
  type CliCommandInput,
} from '../../main/backends/subprocess-cli/command-line.js';
import { quoteCmdArg, type Win32Probe } from '../../main/backends/process/win32-command.js';
import { withDecisionContract } from '../../main/domain/decision-contract.js';

function probe(files: Record<string, string>): Win32Probe {
  const byKey = new Map(Object.entries(files).map(([k, v]) => [k.toLowerCase(), v]));
  return { isFile: (f) => byKey.has(f.toLowerCase()), readText: (f) => byKey.get(f.toLowerCase()) };
}

const BIN = 'C:\\Users\\Zoë\\bin';
const ENV = {
  Path: `C:\\Windows\\System32;${BIN};C:\\Program Files\\nodejs`,
  ComSpec: 'C:\\Windows\\System32\\cmd.exe',
};
// A hand-written wrapper: no npm/pnpm shim pattern, so it can only run through cmd.exe.
const HAND_WRITTEN = '@echo off\r\npython "%~dp0agent.py" %*\r\n';
// npm's cmd-shim (npm 10): resolved to node.exe directly, so any argument is fine.
const NPM_SHIM =
  '@ECHO off\r\nendLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\a\\cli.js" %*\r\n';
const PROMPT = withDecisionContract('Refactor the parser.\nKeep the API.');
const FILE = 'C:\\Users\\Zoë\\AppData\\Local\\Temp\\contactor-prompt-x\\prompt.md';

function input(over: Partial<CliCommandInput>): CliCommandInput {
  return {
    command: ['agent'],
    promptVia: 'arg',
    promptFlag: ['-p'],
    prompt: PROMPT,
    env: ENV,
    platform: 'win32',
    probe: probe({ [`${BIN}\\agent.cmd`]: HAND_WRITTEN }),
    promptFilePath: () => FILE,
    ...over,
  };
}

describe('cliCommandLine for prompt_via: arg on Windows', () => {
  it('the prompt with the decision contract cannot be a batch-file argument at all', () => {
    expect(PROMPT).toContain('\n');
    expect(() => quoteCmdArg(PROMPT, true)).toThrow(/line breaks/);
  });

  it('a hand-written .cmd gets a one-line argument naming a file that holds the whole prompt', () => {
    const line = cliCommandLine(input({}));
    expect(line.promptFile).toEqual({ path: FILE, text: PROMPT });
    expect(line.command[0]).toBe(ENV.ComSpec);
    expect(line.windowsVerbatimArguments).toBe(true);
    const cmdLine = line.command.at(-1)!;
    expect(cmdLine).not.toMatch(/[\r\n]/);
    expect(cmdLine).toContain('^^^"-p^^^"');
    // Every space and metacharacter of the sentence is caret-escaped (twice: the batch file re-parses %*).
    expect(cmdLine.replace(/\^/g, '')).toContain(`"${promptFileArgument(FILE)}"`);
  });

  it('a short single-line prompt still goes as the argument', () => {
    const line = cliCommandLine(input({ prompt: 'hello' }));
    expect(line.promptFile).toBeUndefined();
    expect(line.command.at(-1)).toContain('^^^"hello^^^"');
  });

  it('a prompt too long for cmd.exe goes to the file even without line breaks', () => {
    expect(cliCommandLine(input({ prompt: 'x'.repeat(8000) })).promptFile?.text).toHaveLength(8000);
  });

  it('an npm shim runs node.exe directly and keeps the multi-line prompt as the argument', () => {
    const files = probe({ [`${BIN}\\agent.cmd`]: NPM_SHIM, 'C:\\Program Files\\nodejs\\node.exe': '' });
    const line = cliCommandLine(input({ probe: files }));
    expect(line.promptFile).toBeUndefined();
    expect(line.command).toEqual([
      'C:\\Program Files\\nodejs\\node.exe',
      `${BIN}\\node_modules\\a\\cli.js`,
      '-p',
      PROMPT,
    ]);
  });

  it('stdin delivery and other platforms are unchanged', () => {
    expect(cliCommandLine(input({ promptVia: 'stdin' })).command[0]).toBe(ENV.ComSpec);
    expect(cliCommandLine(input({ platform: 'linux' })).command).toEqual(['agent', '-p', PROMPT]);
  });
});
