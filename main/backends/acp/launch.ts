/**
 * From a configured command to the argv the bridge really spawns, for the three places an ACP agent
 * (or a terminal it asks for) can run: natively, as a Windows program (npm shims resolved, see
 * win32-command.ts), or inside a WSL distro through `wsl.exe`. Pure, with the host platform passed in.
 */
import { CLI_DIR_VAR, envForProgram, wslCommandWithCliDir } from '../process/agent-env.js';
import { spawnChild, type AgentChild } from '../process/child-process.js';
import { resolveWin32Command, type Win32Probe } from '../process/win32-command.js';

export type AgentPlatform = 'native' | 'windows' | 'wsl';

export interface LaunchInput {
  command: readonly string[];
  platform: AgentPlatform;
  distro?: string | undefined;
  /** Working directory as the agent sees it (a Linux path for WSL). */
  agentCwd: string;
  /** The same directory as the host sees it. */
  hostCwd: string;
  env: Record<string, string>;
  /** Variables that must cross into WSL (Windows passes only those named in WSLENV). */
  forwardEnv: readonly string[];
  hostPlatform: NodeJS.Platform;
  probe: Win32Probe;
  /** The desktop app's exe when the bridge runs in it: only that program gets ELECTRON_RUN_AS_NODE. */
  appExe?: string | undefined;
}

export interface LaunchPlan {
  program: string;
  args: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  verbatim: boolean;
  /** How the command was turned into a process, for receipts and error messages. */
  via: 'direct' | 'shim' | 'cmd' | 'wsl';
}

export function planLaunch(input: LaunchInput): LaunchPlan {
  const plan = planFor(input);
  return { ...plan, env: envForProgram(plan.program, plan.env, input.appExe, input.hostPlatform) };
}

function planFor(input: LaunchInput): LaunchPlan {
  if (input.platform === 'wsl') {
    const existing = input.env.WSLENV ? input.env.WSLENV.split(':').filter(Boolean) : [];
    // The CLI folder is a Windows path: `/p` makes WSL hand it over as /mnt/... (agent-env.ts).
    const forward = input.forwardEnv.map((name) => (name === CLI_DIR_VAR ? `${name}/p` : name));
    const wslenv = [...new Set([...existing, ...forward])].join(':');
    const distro = input.distro ? ['-d', input.distro] : [];
    const command = input.env[CLI_DIR_VAR] !== undefined ? wslCommandWithCliDir(input.command) : input.command;
    return {
      program: 'wsl.exe',
      args: [...distro, '--cd', input.agentCwd, '--exec', ...command],
      // wsl.exe takes its directory from --cd; a \\wsl.localhost cwd is not a valid Win32 cwd for it.
      cwd: undefined,
      env: { ...input.env, WSL_UTF8: '1', ...(wslenv ? { WSLENV: wslenv } : {}) },
      verbatim: false,
      via: 'wsl',
    };
  }
  if (input.hostPlatform === 'win32') {
    const w = resolveWin32Command(input.command, input.env, input.probe);
    return { program: w.program, args: w.args, cwd: input.hostCwd, env: input.env, verbatim: w.verbatim, via: w.via };
  }
  const [program, ...args] = input.command;
  if (program === undefined) throw new Error('command needs at least the program to run');
  return { program, args, cwd: input.hostCwd, env: input.env, verbatim: false, via: 'direct' };
}

/** A command line for messages: what was run, never the environment. */
export function describeLaunch(plan: LaunchPlan): string {
  return [plan.program, ...plan.args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/**
 * Spawns a plan with child-process.ts `spawnChild` (shell: false, explicit env, own process group on
 * POSIX so the whole tree can be stopped), passing `windowsVerbatimArguments` for cmd.exe lines.
 */
export function spawnPlan(plan: LaunchPlan): AgentChild {
  return spawnChild({
    command: [plan.program, ...plan.args],
    cwd: plan.cwd,
    env: plan.env,
    windowsVerbatimArguments: plan.verbatim,
  });
}
