/**
 * A session's workspace root: the one directory tree an agent's fs/* and terminal/* requests may touch.
 * The root is held as a real path on the host; an agent's path is translated to the host (WSL agents
 * speak Linux paths), resolved through symlinks, and refused unless it stays inside the root.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AgentPlatform } from './launch.js';
import { windowsToWsl, wslToWindows } from '../process/wsl-paths.js';

export class Workspace {
  private constructor(
    /** Real path of the root on the host. */
    readonly hostRoot: string,
    /** The root as the agent names it (its `session/new` cwd). */
    readonly agentRoot: string,
    private readonly platform: AgentPlatform,
    private readonly distro: string | undefined,
    /** Real host paths no request may touch, even inside the root. */
    private readonly excluded: readonly string[],
  ) {}

  /**
   * `dir` is config.cwd (or the bridge's cwd): a host path, or for WSL agents a Linux path too.
   * Throws with a message naming the directory when it does not exist.
   */
  static async open(
    dir: string,
    platform: AgentPlatform,
    distro: string | undefined,
    excluded: readonly string[] = [],
  ): Promise<Workspace> {
    const linuxDir = platform === 'wsl' && dir.startsWith('/');
    const hostDir = linuxDir ? wslToWindows(dir, distro) : path.resolve(dir);
    let hostRoot: string;
    try {
      hostRoot = await realpath(hostDir);
    } catch {
      throw new Error(`the agent's working directory ${hostDir} does not exist; fix "cwd" in its config`);
    }
    const agentRoot = platform === 'wsl' ? (linuxDir ? dir : windowsToWsl(hostRoot, distro)) : hostRoot;
    const realExcluded = await Promise.all(excluded.map((p) => realpath(p).catch(() => path.resolve(p))));
    if (realExcluded.some((p) => within(p, hostRoot))) {
      throw new Error(`the agent's working directory ${hostDir} lies in the bridge's own data or config; fix "cwd"`);
    }
    return new Workspace(hostRoot, agentRoot, platform, distro, realExcluded);
  }

  /** A path the agent sent, as a host path (not yet checked). */
  toHost(agentPath: string): string {
    if (this.platform === 'wsl') {
      if (!agentPath.startsWith('/')) throw outside(agentPath, this.agentRoot, 'it is not an absolute path');
      return wslToWindows(agentPath, this.distro);
    }
    if (!path.isAbsolute(agentPath)) throw outside(agentPath, this.agentRoot, 'it is not an absolute path');
    return path.resolve(agentPath);
  }

  /** A host path inside the root, as the agent names it. */
  toAgent(hostPath: string): string {
    return this.platform === 'wsl' ? windowsToWsl(hostPath, this.distro) : hostPath;
  }

  /**
   * The real host path of an existing file or directory the agent named, inside the root; otherwise a
   * RequestError the agent can show (-32002 when it does not exist, -32602 when outside).
   */
  async existing(agentPath: string): Promise<string> {
    const host = this.toHost(agentPath);
    let real: string;
    try {
      real = await realpath(host);
    } catch {
      this.check(agentPath, host);
      throw RequestError.resourceNotFound(agentPath);
    }
    return this.check(agentPath, real);
  }

  /**
   * The real host path where the agent may create or replace a file: the nearest existing ancestor is
   * resolved through symlinks, so a link pointing out of the root cannot be written through. Missing
   * parent directories are created once the target is known to be inside.
   */
  async writable(agentPath: string): Promise<string> {
    const host = this.toHost(agentPath);
    const missing: string[] = [];
    let probe = host;
    for (;;) {
      try {
        const real = await realpath(probe);
        const target = this.check(agentPath, path.join(real, ...missing));
        await mkdir(path.dirname(target), { recursive: true });
        return target;
      } catch (err) {
        if (err instanceof RequestError) throw err;
        // realpath fails on a dangling symlink too, and writing through it would create its target
        // wherever it points.
        if ((await lstat(probe).catch(() => undefined))?.isSymbolicLink()) {
          throw outside(agentPath, this.agentRoot, 'it is a symlink to a missing target');
        }
        const parent = path.dirname(probe);
        if (parent === probe) throw outside(agentPath, this.agentRoot, 'no part of it exists');
        missing.unshift(path.basename(probe));
        probe = parent;
      }
    }
  }

  private check(agentPath: string, hostPath: string): string {
    if (!within(this.hostRoot, hostPath)) throw outside(agentPath, this.agentRoot, 'it resolves outside the workspace');
    if (this.excluded.some((dir) => within(dir, hostPath))) {
      throw outside(agentPath, this.agentRoot, "it is in the bridge's own data or config");
    }
    return hostPath;
  }
}

/** Whether `hostPath` is `dir` or below it. */
function within(dir: string, hostPath: string): boolean {
  const rel = path.relative(dir, hostPath);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function outside(agentPath: string, root: string, why: string): RequestError {
  return RequestError.invalidParams(
    { path: agentPath, workspace: root },
    `contactor refused ${agentPath}: ${why}; this session may only use files under ${root}`,
  );
}
