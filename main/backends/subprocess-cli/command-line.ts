/**
 * The command line a subprocess_cli run spawns. With `prompt_via: arg` the prompt is the last argument, except
 * where Windows cannot carry it: a batch file that is no npm/pnpm shim runs through `cmd.exe /d /s /c`, and
 * cmd.exe ends a command at the first line break (quoteCmdArg in win32-command.ts refuses one) and takes at
 * most 8191 characters (Microsoft Learn, "Command prompt (Cmd.exe) command-line string limitation"). The
 * decision contract makes every prompt multi-line, so there the prompt goes to a UTF-8 file and the argument
 * is one line that tells the agent where to read it.
 */
import type { ChildSpec } from '../process/child-process.js';
import { resolveWin32Command, type Win32Probe } from '../process/win32-command.js';

export interface CliCommandInput {
  command: readonly string[];
  promptVia: 'stdin' | 'arg';
  promptFlag: readonly string[];
  prompt: string;
  env: Record<string, string>;
  platform: NodeJS.Platform;
  probe: Win32Probe;
  /** Where the prompt file goes if one is needed (the caller writes `promptFile.text` there before spawning). */
  promptFilePath: () => string;
}

export interface CliCommandLine extends Pick<ChildSpec, 'command' | 'windowsVerbatimArguments'> {
  /** Set when the prompt travels in a file: write it before spawning, remove it after the run. */
  promptFile?: { path: string; text: string };
}

/** cmd.exe's line limit minus room for the program, flags and quoting. */
const CMD_PROMPT_MAX = 7000;

export function promptFileArgument(file: string): string {
  return `Your task is in the UTF-8 text file ${file} - read that file and do what it says.`;
}

export function cliCommandLine(input: CliCommandInput): CliCommandLine {
  const base = input.promptVia === 'arg' ? [...input.command, ...input.promptFlag] : [...input.command];
  if (input.platform !== 'win32') {
    return { command: input.promptVia === 'arg' ? [...base, input.prompt] : base };
  }
  const launch = (args: readonly string[]): CliCommandLine => {
    const resolved = resolveWin32Command(args, input.env, input.probe);
    return { command: [resolved.program, ...resolved.args], windowsVerbatimArguments: resolved.verbatim };
  };
  if (input.promptVia === 'stdin') return launch(base);
  const throughCmd = resolveWin32Command(base, input.env, input.probe).via === 'cmd';
  if (!throughCmd || (!/[\r\n\0]/.test(input.prompt) && input.prompt.length <= CMD_PROMPT_MAX)) {
    return launch([...base, input.prompt]);
  }
  const path = input.promptFilePath();
  return { ...launch([...base, promptFileArgument(path)]), promptFile: { path, text: input.prompt } };
}
