/**
 * A session's workspace root: the one directory tree an agent's fs/* and terminal/* requests may touch.
 * The root is held as a real path on the host; an agent's path is translated to the host (WSL agents
 * speak Linux paths), resolved through symlinks, and refused unless it stays inside the root and is none
 * of the bridge's own files (platform/protected-files.ts: by real path, and by file identity once open,
 * so a hard link or a symlink swapped in after the path check still leads nowhere).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AgentPlatform } from './launch.js';
import { windowsToWsl, wslToWindows } from '../process/wsl-paths.js';
import { pathContains } from '../../platform/path-containment.js';
import { ProtectedFiles } from '../../platform/protected-files.js';
import type { AgentWrites } from '../../platform/agent-writes.js';

const NONE = new ProtectedFiles([]);

export class Workspace {
  private constructor(
    /** Real path of the root on the host. */
    readonly hostRoot: string,
    /** The root as the agent names it (its `session/new` cwd). */
    readonly agentRoot: string,
    private readonly platform: AgentPlatform,
    private readonly distro: string | undefined,
    /** The bridge's own files: no request may touch them, even inside the root. */
    private readonly own: ProtectedFiles,
    /** Where the writes served to this agent are noted (whose, for the config reload), if anywhere. */
    private readonly writes: { log: AgentWrites; agent: string } | undefined,
  ) {}

  /**
   * `dir` is config.cwd (or the bridge's cwd): a host path, or for WSL agents a Linux path too.
   * Throws with a message naming the directory when it does not exist.
   */
  static async open(
    dir: string,
    platform: AgentPlatform,
    distro: string | undefined,
    own: ProtectedFiles = NONE,
    writes?: { log: AgentWrites; agent: string },
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
    if (await own.holdsPath(hostRoot)) {
      throw new Error(`the agent's working directory ${hostDir} lies in the bridge's own data or config; fix "cwd"`);
    }
    return new Workspace(hostRoot, agentRoot, platform, distro, own, writes);
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
      await this.check(agentPath, host);
      throw RequestError.resourceNotFound(agentPath);
    }
    return this.check(agentPath, real);
  }

  /** fs/read_text_file: the text of a file inside the root that is none of the bridge's own. */
  async readText(agentPath: string): Promise<string> {
    const handle = await open(await this.existing(agentPath), 'r');
    try {
      await this.refuseOwn(agentPath, handle);
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  }

  /**
   * fs/write_text_file. Opened without truncating, checked by identity, then replaced: a path that
   * passed the check but reaches one of the bridge's files by the time it is opened changes nothing.
   */
  async writeText(agentPath: string, content: string): Promise<void> {
    // O_NOFOLLOW (POSIX): the target is a real path, so a symlink there now was swapped in after the check.
    const flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
    const handle = await open(await this.writable(agentPath), flags, 0o666);
    try {
      await this.refuseOwn(agentPath, handle);
      await handle.truncate(0);
      await handle.writeFile(content, 'utf8');
      this.writes?.log.note(this.writes.agent, await handle.stat({ bigint: true }));
    } finally {
      await handle.close();
    }
  }

  private async refuseOwn(agentPath: string, handle: FileHandle): Promise<void> {
    if (await this.own.holdsFile(await handle.stat({ bigint: true }))) {
      throw outside(agentPath, this.agentRoot, "it is one of the bridge's own files (a link to its data or config)");
    }
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
        const target = await this.check(agentPath, path.join(real, ...missing));
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

  private async check(agentPath: string, hostPath: string): Promise<string> {
    if (!pathContains(this.hostRoot, hostPath)) {
      throw outside(agentPath, this.agentRoot, 'it resolves outside the workspace');
    }
    if (await this.own.holdsPath(hostPath)) {
      throw outside(agentPath, this.agentRoot, "it is in the bridge's own data or config");
    }
    return hostPath;
  }
}

function outside(agentPath: string, root: string, why: string): RequestError {
  return RequestError.invalidParams(
    { path: agentPath, workspace: root },
    `contactor refused ${agentPath}: ${why}; this session may only use files under ${root}`,
  );
}
