/**
 * `contactor doctor`'s data-dir permissions check (SECURITY.md#threat-model): every entry user-only (folder 0700,
 * files 0600), or what is looser and the command that fixes it; `--fix` applies it. Where modes mean
 * nothing (Windows: the profile ACL protects %LOCALAPPDATA%; a WSL /mnt/c path) it says so.
 */
import { looseEntries, modesApply, restrictDataDir } from '../../config/data-dir-modes.js';
import type { Check } from './check.js';

export function dataDirModesCheck(dataDir: string, fix: boolean, platform: NodeJS.Platform = process.platform): Check {
  const name = 'data dir permissions';
  if (platform === 'win32') {
    return { name, status: 'skip', detail: `${dataDir}: protected by your Windows profile's ACL, not by modes` };
  }
  if (!modesApply(dataDir, platform)) {
    return {
      name,
      status: 'fail',
      detail: `${dataDir} is on a Windows drive, where file modes mean nothing: other Windows users' processes may read it`,
      fix: 'set data_dir in config.yaml to a folder in the Linux file system (e.g. ~/.local/state/contactor)',
    };
  }
  if (fix) restrictDataDir(dataDir);
  const loose = looseEntries(dataDir);
  if (loose.length === 0) return { name, status: 'ok', detail: `${dataDir}: user-only (0700 / 0600)` };
  const shown = loose.slice(0, 5).map((e) => `${e.path} ${e.mode.toString(8)}`);
  return {
    name,
    status: 'fail',
    detail: `readable by other users: ${shown.join(', ')}${loose.length > 5 ? ` and ${loose.length - 5} more` : ''}`,
    fix: `\`contactor doctor --fix\` (or \`chmod -R go-rwx ${dataDir}\`); the bridge also fixes it at each start`,
  };
}
