/**
 * The one answer to "does this path lie inside that folder?" for every check that keeps something out
 * (a task's cwd, an ACP agent's fs/* paths, one-click toasts). Always `pathContains(root, target)`: the
 * folder first. Lexical on its own; compare real paths (`realPathOf`) where a symlink could lead out.
 *
 * A path written the Windows way (`C:\…`, `C:/…`, `\\server\share\…`) is compared as Windows does:
 * case-insensitively, either separator, a drive or share never inside another. Anything else is POSIX,
 * compared byte for byte, so a WSL agent's Linux path is compared as Linux would on any host. A Windows
 * path is never inside a POSIX one, or the other way round.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Whether `target` is `root` itself or lies below it. Both should be absolute; a relative one is never inside. */
export function pathContains(root: string, target: string): boolean {
  const style = styleOf(root);
  if (style !== styleOf(target) || !style.isAbsolute(root) || !style.isAbsolute(target)) return false;
  // win32.relative compares case-insensitively and returns `target` itself for another drive or server.
  const rel = style.relative(root, target);
  if (rel === '') return true;
  if (style.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return false;
  // `..` alone or as a first segment leaves the root; a name that merely starts with dots (`..foo`) does not.
  return rel !== '..' && !rel.startsWith(`..${style.sep}`);
}

/**
 * A standing approval rule's folder test (runtime/approval-rules.ts `PathJudge`): an allow needs the location
 * inside both as written and by real path; a deny or an ask is satisfied by either, or by a location that
 * cannot be placed (relative), so a path written around a deny is still caught.
 */
export const approvalRulePaths = {
  surelyInside: (folder: string, location: string): boolean =>
    pathContains(folder, location) && pathContains(realPathOf(folder), realPathOf(location)),
  maybeInside: (folder: string, location: string): boolean =>
    !isAbsolutePath(location) ||
    pathContains(folder, location) ||
    pathContains(realPathOf(folder), realPathOf(location)),
};

/** Whether a path is absolute in either style (a WSL agent's Linux path on a Windows host counts). */
export function isAbsolutePath(p: string): boolean {
  return path.posix.isAbsolute(p) || path.win32.isAbsolute(p);
}

/** `C:\…`, `C:/…` and `\\server\…` are Windows paths wherever the bridge runs; `//server/…` only on Windows. */
export function isWindowsStyle(p: string, platform: NodeJS.Platform = process.platform): boolean {
  return /^[A-Za-z]:([\\/]|$)/.test(p) || p.startsWith('\\\\') || (platform === 'win32' && /^\/\/[^/]/.test(p));
}

function styleOf(p: string): typeof path.posix {
  return isWindowsStyle(p) ? path.win32 : path.posix;
}

/**
 * The real path of `p`: its nearest existing ancestor resolved through symlinks, plus the
 * rest as written, normalized. So a path that does not exist yet still resolves where it would be created.
 * A POSIX path on a Windows host (a WSL agent's) cannot be resolved there: it is only normalized.
 */
export function realPathOf(p: string): string {
  if (process.platform === 'win32' && p.startsWith('/') && !isWindowsStyle(p)) return path.posix.normalize(p);
  const missing: string[] = [];
  for (let probe = path.resolve(p); ; probe = path.dirname(probe)) {
    try {
      return path.join(realpathSync(probe), ...missing);
    } catch {
      if (path.dirname(probe) === probe) return path.resolve(p);
      missing.unshift(path.basename(probe));
    }
  }
}
