/**
 * The folders a one-click Allow never reads (low-risk.ts `protectedDirs`): the bridge's own files and every
 * place a config is read from or written to, whichever config is loaded now. That includes both ends of the
 * Windows config move (config-move.ts, docs/contract.md#files-and-places): the former folder
 * %APPDATA%\contactor, whose config.yaml a start copies to the new place when that has none (an agent that could
 * plant one there chooses the next config), and the current default %USERPROFILE%\.contactor — also when the
 * bridge failed before it read its config, or reads one named by `-c`.
 * SECURITY.md "What the desktop app saves and answers with one click".
 */
import path from 'node:path';
import { defaultConfigPath, legacyConfigPath } from '../wiring/wiring.js';
import { protectedHomeDirs } from './low-risk.js';

export interface ProtectedDirsInput {
  /** The bridge's data dir, as loaded (or the default when the config failed). */
  dataDir: string | undefined;
  /** The config file the bridge reads, when it got that far. */
  configPath: string | undefined;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  home: string;
}

export function protectedDirsFor(input: ProtectedDirsInput): string[] {
  // Windows paths are read the Windows way wherever the test runs (win32 also takes `/`).
  const p = input.platform === 'win32' ? path.win32 : path.posix;
  const legacy = legacyConfigPath(input.env, input.platform);
  const dirs = [
    input.dataDir,
    input.configPath && p.dirname(input.configPath),
    p.dirname(defaultConfigPath(input.env, input.platform)),
    legacy && p.dirname(legacy),
    ...protectedHomeDirs(input.home),
  ];
  return [...new Set(dirs.filter((d): d is string => !!d))];
}
