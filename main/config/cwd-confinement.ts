/**
 * Where a task may run (SECURITY.md#what-the-bridge-guarantees): a caller once sent `cwd: "/"` and an ACP agent read
 * the bridge's token through fs/read_text_file; a CLI agent ran in `~/.ssh`. A task's cwd must lie inside the agent's
 * roots — its configured `cwd` and below, or the explicit `allowed_cwds` list, or the user's home when it has neither —
 * and never inside the bridge's own data dir or config folder, whatever the roots say.
 *
 * Paths are compared after resolving symlinks (the nearest existing ancestor of a path that does not
 * exist yet), so a link inside a root cannot lead out of it. A WSL agent's Linux paths cannot be resolved
 * from the host: they are compared as written (normalized), against roots written the same way.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { BridgeError } from '../domain/errors.js';

export interface CwdRules {
  agent: string;
  /** The agent's configured `cwd`, if any. */
  cwd?: string | undefined;
  /** The agent's `allowed_cwds`, if any: replaces the default root. */
  allowedCwds?: string[] | undefined;
  /** The user's home: the root of an agent with neither. */
  home: string;
  /** Never inside any root: the data dir, the config file (and its folder in the default location). */
  excluded: string[];
  /**
   * How the agent sees a host path, when that differs (a WSL agent: `C:\...` and `\\wsl.localhost\...` as the
   * distro's `/mnt/c/...` and `/home/...`). Roots, excluded dirs and a task's cwd are all compared in that form,
   * so a cwd the WSL wrapper translated for Windows still meets a Linux `cwd`, and the data dir stays out.
   */
  agentPath?: (hostPath: string) => string;
}

export interface CwdConfinement {
  readonly roots: readonly string[];
  readonly excluded: readonly string[];
  /** The task's cwd, resolved, when it is allowed; else a -32602 naming the roots. */
  confine(cwd: string): string;
}

export function cwdConfinement(rules: CwdRules): CwdConfinement {
  const seen = rules.agentPath ?? ((p: string) => p);
  const real = (p: string): string => resolveReal(seen(p));
  const roots = (rules.allowedCwds?.length ? rules.allowedCwds : [rules.cwd ?? rules.home]).map(real);
  const excluded = rules.excluded.map(real);
  const refuse = (cwd: string, why: string): BridgeError =>
    new BridgeError(
      'invalid-params',
      `cwd ${JSON.stringify(cwd)} ${why}; agent "${rules.agent}" may run in: ${roots.join(', ')} (widen with allowed_cwds in its config)`,
      { allowedRoots: roots },
    );
  return {
    roots,
    excluded,
    confine(cwd) {
      if (!isAbsoluteAny(cwd)) throw refuse(cwd, 'is not an absolute path');
      let resolved: string;
      try {
        resolved = real(cwd);
      } catch (err) {
        throw refuse(cwd, `cannot be reached by the agent (${(err as Error).message})`);
      }
      if (excluded.some((dir) => isInside(resolved, dir))) throw refuse(cwd, "lies in the bridge's own data or config");
      if (!roots.some((root) => isInside(resolved, root))) throw refuse(cwd, 'is outside the allowed roots');
      return resolved;
    },
  };
}

/** Whether `target` is `dir` or below it (both resolved; POSIX-style paths compared as POSIX). */
export function isInside(target: string, dir: string): boolean {
  const posix = target.startsWith('/') && dir.startsWith('/');
  const rel = posix ? path.posix.relative(dir, target) : path.relative(dir, target);
  const sep = posix ? '/' : path.sep;
  return (
    rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !path.isAbsolute(rel) && !/^[A-Za-z]:/.test(rel))
  );
}

function isAbsoluteAny(p: string): boolean {
  return p.startsWith('/') || path.isAbsolute(p) || path.win32.isAbsolute(p);
}

/**
 * The real path of `p`: its nearest existing ancestor resolved through symlinks, plus the rest as
 * written (normalized). A POSIX path on Windows (a WSL agent's) is only normalized.
 */
export function resolveReal(p: string): string {
  if (process.platform === 'win32' && p.startsWith('/')) return path.posix.normalize(p);
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
