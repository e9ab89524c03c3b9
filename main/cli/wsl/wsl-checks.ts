/**
 * `doctor`'s WSL checks: is WSL there, and is every `platform: wsl` agent's distro installed. Runs where
 * wsl.exe is reachable (Windows, or inside WSL through interop); elsewhere it says it skipped.
 */
import type { BridgeConfig } from '../../schema/config.js';
import type { Check } from '../doctor/check.js';
import type { CommandRunner } from '../command-runner.js';
import { findDistro, listWslDistros } from './wsl-probe.js';

export interface WslCheckInput {
  config: BridgeConfig | undefined;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  run: CommandRunner;
}

export async function wslChecks({ config, platform, env, run }: WslCheckInput): Promise<Check[]> {
  const wslAgents = Object.entries(config?.agents ?? {}).flatMap(([name, agent]) =>
    agent.kind === 'acp' && agent.platform === 'wsl' ? [{ name, distro: agent.distro }] : [],
  );
  const users = wslAgents.map((a) => a.name).join(', ');
  const listed = await listWslDistros(run, env);
  if (listed.kind === 'absent') {
    if (platform !== 'win32') return [{ name: 'wsl', status: 'skip', detail: 'skipped: not on Windows/WSL' }];
    if (!wslAgents.length) return [{ name: 'wsl', status: 'skip', detail: 'WSL is not installed; no agent needs it' }];
    return [
      {
        name: 'wsl',
        status: 'fail',
        detail: `wsl.exe not found, but ${users} run${wslAgents.length === 1 ? 's' : ''} in WSL`,
        fix: "`wsl --install` in an administrator PowerShell, or change those agents' platform",
      },
    ];
  }
  if (listed.kind === 'failed') {
    return [
      {
        name: 'wsl',
        status: wslAgents.length ? 'fail' : 'skip',
        detail: listed.reason,
        fix: '`wsl -l -v` shows what is installed; `wsl --install -d Ubuntu` installs a distro',
      },
    ];
  }
  const { distros } = listed;
  const checks: Check[] = [
    distros.length
      ? { name: 'wsl', status: 'ok', detail: `distros: ${distros.join(', ')}` }
      : {
          name: 'wsl',
          status: wslAgents.length ? 'fail' : 'skip',
          detail: 'WSL has no distro installed',
          fix: '`wsl --install -d Ubuntu`',
        },
  ];
  for (const agent of wslAgents) {
    const name = `wsl distro for ${agent.name}`;
    if (agent.distro === undefined) {
      // `wsl -l -q` does not mark the default; `wsl -l` does, in words translated per locale.
      if (distros.length) checks.push({ name, status: 'ok', detail: "no distro set: WSL's default distro" });
      continue;
    }
    const found = findDistro(distros, agent.distro);
    checks.push(
      found
        ? { name, status: 'ok', detail: `${found} is installed` }
        : {
            name,
            status: 'fail',
            detail: `distro "${agent.distro}" is not installed${distros.length ? ` (installed: ${distros.join(', ')})` : ''}`,
            fix: distros.length
              ? `set agents.${agent.name}.distro to one of ${distros.join(', ')}, or \`wsl --install -d ${agent.distro}\``
              : `\`wsl --install -d ${agent.distro}\``,
          },
    );
  }
  return checks;
}
