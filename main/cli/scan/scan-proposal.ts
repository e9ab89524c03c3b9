/**
 * From "where a known agent was found" to a config.yaml entry for the bridge that will run it. Names get
 * the side as a suffix (`codex_windows`, `codex_ubuntu`), so one machine's finds never collide.
 * - native: the known entry as it is.
 * - windows (seen from WSL): ACP agents get `platform: windows`; a program found off PATH gets its full path.
 * - wsl (seen from Windows): ACP agents get `platform: wsl` + `distro` and run through `bash -lc`, because
 *   `wsl.exe --exec` skips the login profile that puts npm-global agents on PATH (electron-windows.md §3).
 *   One-shot CLIs have no platform key, so their command itself goes through wsl.exe, the prompt as "$@".
 */
import type { KnownAgent } from './known-agents.js';

export type Side = 'native' | 'windows' | 'wsl';

export interface Sighting {
  known: KnownAgent;
  side: Side;
  /** Where it was found, in its own OS's form. */
  path: string;
  /** Windows side: found by where.exe, so the bare name runs. */
  onPath?: boolean;
  distro?: string;
}

export interface Proposal {
  name: string;
  product: string;
  program: string;
  path: string;
  side: Side;
  distro?: string;
  entry: Record<string, unknown>;
}

/** POSIX shell quoting for a word inside `bash -lc '...'`. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function distroSlug(distro: string): string {
  return (
    distro
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'wsl'
  );
}

export function propose(s: Sighting): Proposal {
  const { known } = s;
  const command = (known.entry.command as string[] | undefined) ?? [known.program];
  const base = { product: known.product, program: known.program, path: s.path, side: s.side };
  switch (s.side) {
    case 'native':
      return { ...base, name: known.name, entry: known.entry };
    case 'windows': {
      const runnable = s.onPath ? command : [s.path, ...command.slice(1)];
      const entry = {
        ...known.entry,
        command: runnable,
        ...(known.entry.kind === 'acp' ? { platform: 'windows' } : {}),
      };
      return { ...base, name: `${known.name}_windows`, entry };
    }
    case 'wsl': {
      const distro = s.distro ?? '';
      const line = command.map(shellWord).join(' ');
      const entry =
        known.entry.kind === 'acp'
          ? { ...known.entry, platform: 'wsl', distro, command: ['bash', '-lc', `exec ${line}`] }
          : {
              ...known.entry,
              command: ['wsl.exe', '-d', distro, '--exec', 'bash', '-lc', `exec ${line} "$@"`, known.program],
            };
      return { ...base, distro, name: `${known.name}_${distroSlug(distro)}`, entry };
    }
    default: {
      const never: never = s.side;
      return never;
    }
  }
}
