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
import { BridgeError } from '../domain/errors.js';
import { isAbsolutePath, pathContains, realPathOf } from '../platform/path-containment.js';

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
  const real = (p: string): string => realPathOf(seen(p));
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
      if (!isAbsolutePath(cwd)) throw refuse(cwd, 'is not an absolute path');
      let resolved: string;
      try {
        resolved = real(cwd);
      } catch (err) {
        throw refuse(cwd, `cannot be reached by the agent (${(err as Error).message})`);
      }
      if (excluded.some((dir) => pathContains(dir, resolved)))
        throw refuse(cwd, "lies in the bridge's own data or config");
      if (!roots.some((root) => pathContains(root, resolved))) throw refuse(cwd, 'is outside the allowed roots');
      return resolved;
    },
  };
}
